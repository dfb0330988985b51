import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { handleShutdown, REPEAT_WINDOW_MS } from '../../src/platform/shutdown.js';
import { capturingLogger } from '../helpers/processes.js';

/** A shutdown wired to an emitter instead of the process, with exits recorded instead of made. */
function harness(close: () => Promise<void> = async () => undefined, graceMs = 60_000) {
  const source = new EventEmitter();
  const exits: number[] = [];
  const begins: Array<string | undefined> = [];
  let closes = 0;
  const { logger, lines } = capturingLogger();
  const shutdown = handleShutdown({
    logger, graceMs, source, exit: (code) => { exits.push(code); },
    onBegin: (signal) => { begins.push(signal); },
    close: async () => { closes += 1; await close(); },
  });
  return { source, exits, begins, lines, shutdown, closes: () => closes };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('shutdown', () => {
  it('shuts down once on Ctrl-C and ignores npm forwarding the same signal at once', async () => {
    let finish!: () => void;
    const h = harness(() => new Promise<void>((r) => { finish = r; }));
    h.source.emit('SIGINT');
    h.source.emit('SIGINT'); // npm's echo of the same Ctrl-C
    await tick();
    assert.equal(h.closes(), 1);
    assert.deepEqual(h.begins, ['SIGINT']);
    assert.equal(h.shutdown.begun, true);
    assert.deepEqual(h.exits, [], 'the echo does not exit');
    finish();
    await tick();
    assert.deepEqual(h.exits, [0]);
    assert.deepEqual(h.lines.filter((l) => l.level >= 50), [], 'nothing logged as an error');
    assert.deepEqual(h.lines.filter((l) => l.msg === 'shutting down').length, 1);
    assert.ok(h.lines.some((l) => l.msg === 'shutdown complete'));
  });

  it('exits at once on a second Ctrl-C after the echo window, without waiting for the close', async () => {
    const h = harness(() => new Promise<void>(() => undefined));
    h.source.emit('SIGINT');
    await new Promise((r) => setTimeout(r, REPEAT_WINDOW_MS + 50));
    h.source.emit('SIGINT');
    assert.deepEqual(h.exits, [1]);
    assert.equal(h.lines.filter((l) => l.level >= 50).length, 0, 'a person insisting is a warning, not an error');
    assert.ok(h.lines.some((l) => l.level === 40 && /second signal/.test(l.msg)));
  });

  it('exits at once on another signal while shutting down', async () => {
    const h = harness(() => new Promise<void>(() => undefined));
    h.source.emit('SIGTERM');
    h.source.emit('SIGINT');
    assert.deepEqual(h.exits, [1]);
  });

  it('exits 1 after an uncaught error, once closed, and 1 when the close outlasts the grace time', async () => {
    const crashed = harness();
    crashed.source.emit('uncaughtException', new Error('boom'));
    await tick();
    assert.deepEqual(crashed.exits, [1]);
    assert.ok(crashed.lines.some((l) => l.level === 50 && l.msg === 'shutting down after an error'));

    const slow = harness(() => new Promise<void>(() => undefined), 100);
    slow.source.emit('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(slow.exits, [1]);
    assert.ok(slow.lines.some((l) => /SHUTDOWN_GRACE_MS/.test(l.msg)));
  });

  it('exits 1 when closing fails', async () => {
    const h = harness(async () => { throw new Error('cannot close'); });
    h.source.emit('SIGTERM');
    await tick();
    await tick();
    assert.deepEqual(h.exits, [1]);
  });
});
