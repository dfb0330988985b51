import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ActivityKind, RecordedActivity } from '../../src/modules/activity/index.js';
import { activityRow, activityWords, wordsText, type ActivityFacts } from '../../src/portal/activity.view.js';

/** The activity page's words for each kind, without a database; and what they say when a detail is missing. */

const entry = (kind: ActivityKind, details: Record<string, unknown> = {}, more: Partial<ActivityFacts> = {}): ActivityFacts => ({
  kind, details, orderNumber: null, subjectName: 'Ann Lee', subjectEmail: 'ann@example.com', ...more,
});
const say = (e: ActivityFacts, currency = 'AUD') => wordsText(activityWords(e, currency)).replace(/\u00a0/g, ' ');
const order = (n: string) => ({ orderNumber: n });

describe('activityWords', () => {
  const cases: Array<[string, ActivityFacts, string]> = [
    ['a sign-in', entry('sign-in'), 'Signed in'],
    ['an invitation with its role', entry('invitation', { role: 'Buyer' }), 'Invited Ann Lee as Buyer'],
    ['a role change', entry('role-change', { from: 'Buyer', to: 'Viewer' }), 'Changed Ann Lee’s role from Buyer to Viewer'],
    ['a deactivation', entry('deactivation'), 'Deactivated Ann Lee'],
    ['a reactivation', entry('reactivation'), 'Reactivated Ann Lee'],
    ['a first limit', entry('limit-change', { from: null, to: '500.0000' }), 'Set Ann Lee’s order limit to AUD 500.00'],
    ['a limit changed', entry('limit-change', { from: '500.0000', to: '1250.5000' }), 'Set Ann Lee’s order limit to AUD 1,250.50 (was AUD 500.00)'],
    ['a limit removed', entry('limit-change', { from: '500.0000', to: null }), 'Removed Ann Lee’s order limit of AUD 500.00'],
    ['a submission with its total', entry('submission', { total: '1234.5000', currency: 'AUD' }, order('PW-1001')), 'Submitted order PW-1001 for approval (total AUD 1,234.50)'],
    ['an approval', entry('approval', {}, order('PW-1001')), 'Approved order PW-1001'],
    ['a decline with its reason', entry('decline', { reason: 'Over this month’s budget' }, order('PW-1002')), 'Declined order PW-1002: Over this month’s budget'],
    ['a withdrawal', entry('withdrawal', {}, order('PW-1003')), 'Withdrew order PW-1003'],
  ];
  for (const [what, e, words] of cases) {
    it(`says ${what}: "${words}"`, () => assert.equal(say(e), words));
  }

  // The recording modules agreed on the keys (ActivityDetails); an entry without one still reads.
  const missing: Array<[string, ActivityFacts, string]> = [
    ['an invitation without a role', entry('invitation'), 'Invited Ann Lee'],
    ['a role change without its old role', entry('role-change', { to: 'Viewer' }), 'Changed Ann Lee’s role to Viewer'],
    ['a role change without roles', entry('role-change', { from: 'Buyer', to: 'Boss' }), 'Changed Ann Lee’s role'],
    ['a limit removed without its old value', entry('limit-change', { to: null }), 'Removed Ann Lee’s order limit'],
    ['a limit change without values', entry('limit-change'), 'Changed Ann Lee’s order limit'],
    ['a limit that is no amount', entry('limit-change', { to: 'lots' }), 'Changed Ann Lee’s order limit'],
    ['a submission without a total', entry('submission', {}, order('PW-1')), 'Submitted order PW-1 for approval'],
    ['a decline without a reason', entry('decline', { reason: '  ' }, order('PW-2')), 'Declined order PW-2'],
    ['an approval without an order number', entry('approval'), 'Approved an order'],
    ['a subject known only by email', entry('deactivation', {}, { subjectName: null }), 'Deactivated ann@example.com'],
    ['a subject not known', entry('reactivation', {}, { subjectName: null, subjectEmail: null }), 'Reactivated a user'],
    ['details absent altogether', { ...entry('invitation'), details: undefined as unknown as Record<string, unknown> }, 'Invited Ann Lee'],
  ];
  for (const [what, e, words] of missing) {
    it(`says ${what}: "${words}"`, () => assert.equal(say(e), words));
  }

  it('writes a total in the currency it was submitted in, else the site\'s', () => {
    assert.equal(say(entry('submission', { total: '99.9000', currency: 'NZD' }, order('PW-3'))), 'Submitted order PW-3 for approval (total NZD 99.90)');
    assert.equal(say(entry('submission', { total: '99.9000' }, order('PW-3')), 'NZD'), 'Submitted order PW-3 for approval (total NZD 99.90)');
    assert.equal(say(entry('submission', { total: '99.9000', currency: 'dollars' }, order('PW-3'))), 'Submitted order PW-3 for approval (total AUD 99.90)');
  });

  it('links each order number to its order page, and nothing else', () => {
    for (const kind of ['submission', 'approval', 'decline', 'withdrawal'] as const) {
      const links = activityWords(entry(kind, { reason: 'No' }, order('PW/7 8')), 'AUD').filter((p) => p.href !== undefined);
      assert.deepEqual(links, [{ text: 'order PW/7 8', href: '/orders/PW%2F7%208' }], kind);
    }
    for (const kind of ['sign-in', 'invitation', 'role-change', 'deactivation', 'reactivation', 'limit-change'] as const) {
      assert.ok(activityWords(entry(kind), 'AUD').every((p) => p.href === undefined), kind);
    }
  });

  it('says a kind it does not know as recorded', () => {
    assert.equal(say(entry('merger' as ActivityKind)), 'merger');
  });
});

describe('activityRow', () => {
  const recorded = (more: Partial<RecordedActivity>): RecordedActivity => ({
    id: '1', at: new Date('2026-11-20T13:30:00Z'), kind: 'sign-in', orderNumber: null, details: {},
    actorName: 'Ada Admin', actorEmail: 'ada@example.com', subjectName: null, subjectEmail: null, ...more,
  });

  it('says when in the site\'s time zone, with the instant for the time element, and who by name and email', () => {
    const row = activityRow(recorded({}), 'AUD', 'Australia/Sydney');
    assert.equal(row.at, '2026-11-20T13:30:00.000Z');
    assert.equal(row.when, '21 Nov 2026, 00:30');
    assert.equal(row.who, 'Ada Admin');
    assert.equal(row.whoEmail, 'ada@example.com');
    assert.equal(wordsText(row.what), 'Signed in');
  });

  it('says "System" when nobody acted', () => {
    const row = activityRow(recorded({ kind: 'approval', orderNumber: 'PW-9', actorName: null, actorEmail: null }), 'AUD', 'UTC');
    assert.equal(row.who, 'System');
    assert.equal(row.whoEmail, undefined);
    assert.equal(row.when, '20 Nov 2026, 13:30');
  });
});
