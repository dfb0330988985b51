import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphileLogger } from '../../src/platform/jobs/worker.js';
import { capturingLogger } from '../helpers/processes.js';

describe('the job queue\'s log lines', () => {
  it('logs a connection the queue lost (a restart, a shutdown) as a warning, and its other errors as errors', () => {
    const { logger, lines } = capturingLogger();
    const queue = graphileLogger(logger);
    queue.error('PostgreSQL active client generated error: terminating connection due to administrator command', {});
    queue.error('PostgreSQL idle client generated error: Connection terminated unexpectedly', {});
    queue.error('Failed task 7 (orders.erp-handoff) with error boom', {});
    assert.deepEqual(lines.map((l) => l.level), [40, 40, 50]);
  });
});
