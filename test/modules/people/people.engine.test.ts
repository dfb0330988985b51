import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leavesNoAdministrator, readInvitation, readOrderLimit, statusOf } from '../../../src/modules/people/people.engine.js';
import type { Role } from '../../../src/modules/users/index.js';

/** The People rules that need no database, one row per rule (docs/decisions.md "People"). */

describe('people engine: status, the last active Administrator, the forms', () => {
  it('says a person\'s status: deactivated first, then whether they can sign in', () => {
    const rows: Array<[{ deactivated: boolean; hasPassword: boolean }, string]> = [
      [{ deactivated: false, hasPassword: true }, 'Active'],
      [{ deactivated: false, hasPassword: false }, 'Invited'],
      [{ deactivated: true, hasPassword: true }, 'Deactivated'],
      [{ deactivated: true, hasPassword: false }, 'Deactivated'],
    ];
    for (const [p, status] of rows) assert.equal(statusOf(p), status, JSON.stringify(p));
  });

  it('refuses a change that leaves no active Administrator who has accepted', () => {
    const person = (userId: string, role: Role, more: { deactivated?: boolean; hasPassword?: boolean } = {}) =>
      ({ userId, role, deactivated: more.deactivated ?? false, hasPassword: more.hasPassword ?? true });
    const ann = person('ann', 'Administrator');
    const bob = person('bob', 'Administrator');
    const rows: Array<[string, ReturnType<typeof person>[], ReturnType<typeof person>, boolean]> = [
      ['the only Administrator', [ann, person('b', 'Buyer')], ann, true],
      ['one of two', [ann, bob], ann, false],
      ['the other one is deactivated', [ann, person('bob', 'Administrator', { deactivated: true })], ann, true],
      ['the other one has not accepted', [ann, person('bob', 'Administrator', { hasPassword: false })], ann, true],
      ['a Buyer: no Administrator is lost', [ann, person('b', 'Buyer')], person('b', 'Buyer'), false],
      ['a deactivated Administrator', [ann, person('bob', 'Administrator', { deactivated: true })], person('bob', 'Administrator', { deactivated: true }), false],
      ['an invited Administrator', [ann, person('bob', 'Administrator', { hasPassword: false })], person('bob', 'Administrator', { hasPassword: false }), false],
    ];
    for (const [what, people, subject, refused] of rows) assert.equal(leavesNoAdministrator(people, subject), refused, what);
  });

  it('reads an order limit: empty is none, an amount of 0 or more at most to the minor unit, thousands separators allowed', () => {
    const rows: Array<[string, string, ReturnType<typeof readOrderLimit>]> = [
      ['', 'AUD', { ok: true, limit: null }],
      ['   ', 'AUD', { ok: true, limit: null }],
      ['0', 'AUD', { ok: true, limit: '0.0000' }],
      ['2500', 'AUD', { ok: true, limit: '2500.0000' }],
      [' 2,500.5 ', 'AUD', { ok: true, limit: '2500.5000' }],
      ['2500.55', 'AUD', { ok: true, limit: '2500.5500' }],
      ['2500.555', 'AUD', { ok: false, problem: 'too-many-places' }],
      ['2500.5', 'JPY', { ok: false, problem: 'too-many-places' }],
      ['2500.555', 'KWD', { ok: true, limit: '2500.5550' }],
      ['-1', 'AUD', { ok: false, problem: 'not-an-amount' }],
      ['AUD 20', 'AUD', { ok: false, problem: 'not-an-amount' }],
      ['1e3', 'AUD', { ok: false, problem: 'not-an-amount' }],
      ['.5', 'AUD', { ok: false, problem: 'not-an-amount' }],
      ['999999999999999.99', 'AUD', { ok: true, limit: '999999999999999.9900' }],
      ['1000000000000000', 'AUD', { ok: false, problem: 'too-large' }],
      ['0001000', 'AUD', { ok: true, limit: '1000.0000' }],
    ];
    for (const [typed, currency, read] of rows) assert.deepEqual(readOrderLimit(typed, currency), read, `${typed} ${currency}`);
  });

  it('reads an invitation: name, email and role, each problem on its field', () => {
    assert.deepEqual(readInvitation({ name: ' Sam Lee ', email: ' Sam@Example.com ', role: 'Buyer' }), { ok: true, name: 'Sam Lee', email: 'Sam@Example.com', role: 'Buyer' });
    const fields = (r: ReturnType<typeof readInvitation>) => (r.ok ? [] : r.errors.map((e) => `${e.field}: ${e.message}`));
    assert.deepEqual(fields(readInvitation({ name: '', email: '', role: '' })), [
      'name: Enter their name', 'email: Enter their email address', 'role: Choose a role',
    ]);
    assert.deepEqual(fields(readInvitation({ name: 'x'.repeat(101), email: 'no-at-sign', role: 'Owner' })), [
      'name: Name must be 100 characters or fewer', 'email: Enter an email address in the correct format, like name@example.com', 'role: Choose a role',
    ]);
    assert.deepEqual(fields(readInvitation({ name: 'A\u0000B', email: 'a@b.example', role: 'Viewer' })), ['name: Name must contain only letters, digits, spaces and punctuation']);
  });
});
