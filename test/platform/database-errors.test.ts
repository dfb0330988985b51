import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/platform/db/pool.js';
import { installProblemHandlers } from '../../src/platform/http/problem.js';
import { capturingLogger } from '../helpers/processes.js';

/** Which database errors are "unavailable, retry" (503) and which are faults (500). */

const pgError = (code: string): pg.DatabaseError => {
  const error = new pg.DatabaseError(`error ${code}`, 0, 'error');
  error.code = code;
  return error;
};
const errno = (code: string): Error => Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });

const UNAVAILABLE: Array<[string, Error]> = [
  ['08000 connection exception', pgError('08000')],
  ['08006 connection failure', pgError('08006')],
  ['08P01 protocol violation (class 08)', pgError('08P01')],
  ['57P01 admin shutdown', pgError('57P01')],
  ['57P02 crash shutdown', pgError('57P02')],
  ['57P03 cannot connect now', pgError('57P03')],
  ['53000 insufficient resources', pgError('53000')],
  ['53300 too many connections', pgError('53300')],
  ['40001 serialization failure', pgError('40001')],
  ['40P01 deadlock detected', pgError('40P01')],
  ['55P03 lock not available (lock_timeout)', pgError('55P03')],
  ['57014 query canceled (statement_timeout)', pgError('57014')],
  ['ECONNREFUSED', errno('ECONNREFUSED')],
  ['ECONNRESET', errno('ECONNRESET')],
  ['ETIMEDOUT', errno('ETIMEDOUT')],
  ['pg: Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
  ['pg-pool: timeout exceeded when trying to connect', new Error('timeout exceeded when trying to connect')],
];
const FAULTS: Array<[string, Error]> = [
  ['22021 invalid byte sequence (a NUL)', pgError('22021')],
  ['22P02 invalid text representation', pgError('22P02')],
  ['22003 numeric value out of range', pgError('22003')],
  ['42P01 undefined table', pgError('42P01')],
  ['42601 syntax error', pgError('42601')],
  ['42703 undefined column', pgError('42703')],
  ['23505 unique violation', pgError('23505')],
  ['23503 foreign key violation', pgError('23503')],
  ['57P04 database dropped (class 57, not listed)', pgError('57P04')],
  ['40002 transaction integrity constraint violation (class 40, not listed)', pgError('40002')],
  ['55000 object not in prerequisite state (class 55, not listed)', pgError('55000')],
  ['XX000 internal error', pgError('XX000')],
  ['no code', Object.assign(new pg.DatabaseError('odd', 0, 'error'), { code: undefined })],
  ['a plain Error', new Error('boom')],
];

describe('isDatabaseUnavailable', () => {
  for (const [name, error] of UNAVAILABLE) it(`${name}: unavailable, retry`, () => assert.equal(isDatabaseUnavailable(error), true));
  for (const [name, error] of FAULTS) it(`${name}: a fault, not unavailability`, () => assert.equal(isDatabaseUnavailable(error), false));
  it('is false for what is not an Error', () => assert.equal(isDatabaseUnavailable({ code: '08006' }), false));
});

describe('problem answers for database errors', () => {
  let app: FastifyInstance;
  const log = capturingLogger();
  let thrown: Error = new Error('unset');
  before(async () => {
    app = Fastify({ loggerInstance: log.logger }) as unknown as FastifyInstance;
    installProblemHandlers(app);
    app.get('/fails', async () => { throw thrown; });
    await app.ready();
  });
  after(async () => app.close());

  it('503 database-unavailable with Retry-After for each connection-class and retryable error', async () => {
    for (const [name, error] of UNAVAILABLE) {
      thrown = error;
      const res = await app.inject({ url: '/fails' });
      assert.equal(res.statusCode, 503, name);
      assert.equal(res.json().type, 'urn:portway:problem:database-unavailable', name);
      assert.equal(res.headers['retry-after'], '5', name);
    }
    // An outage is a warning a line each, with its cause and no stack; never an error.
    const outage = log.lines.filter((l) => l.msg === 'request failed: the database is unavailable');
    assert.equal(outage.length, UNAVAILABLE.length);
    assert.ok(outage.every((l) => l.level === 40 && !JSON.stringify(l).includes('"stack"')));
    assert.deepEqual(log.lines.filter((l) => l.level >= 50), []);
  });

  it('500 internal without Retry-After and without the SQL error text for data, syntax and constraint errors', async () => {
    for (const [name, error] of FAULTS) {
      thrown = error;
      const res = await app.inject({ url: '/fails' });
      assert.equal(res.statusCode, 500, name);
      assert.equal(res.json().type, 'urn:portway:problem:internal', name);
      assert.equal(res.headers['retry-after'], undefined, name);
      assert.doesNotMatch(res.body, /error \d|boom|odd/, name);
    }
    assert.equal(log.lines.filter((l) => l.level === 50 && l.msg === 'request failed').length, FAULTS.length, 'a fault is logged as an error');
  });
});
