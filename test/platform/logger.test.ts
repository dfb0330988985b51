import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createCliLogger, isPretty, prettyMessage } from '../../src/platform/logger.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** Runs `code` (an ES module using the logger of src/platform/logger.ts) in a process of its own and returns its output. */
async function logFrom(code: string): Promise<{ stdout: string; stderr: string }> {
  const script = `import { createLogger, createCliLogger } from ${JSON.stringify(path.join(root, 'src/platform/logger.ts'))};\n${code}`;
  return run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
}

const request = { req: { method: 'GET', url: '/invitations/[token]', host: 'h' }, res: { statusCode: 200 }, responseTime: 3.14159, correlationId: 'c-1' };

describe('log format', () => {
  it('pretty only when asked, or with auto when the stream is a terminal', () => {
    assert.equal(isPretty('json', 1), false);
    assert.equal(isPretty('pretty', 1), true);
    assert.equal(isPretty('pretty', 2), true);
    assert.equal(isPretty('auto', 1), process.stdout.isTTY === true);
    assert.equal(isPretty('auto', 2), process.stderr.isTTY === true);
  });

  it('shows a request as method, URL, status and time, and any line with its correlation id', () => {
    assert.equal(prettyMessage({ ...request, msg: 'request completed' }, 'msg'), 'GET /invitations/[token] 200 3.1 ms [c-1]');
    assert.equal(prettyMessage({ msg: 'listening', correlationId: 'c-2' }, 'msg'), 'listening [c-2]');
    assert.equal(prettyMessage({ msg: 'boom', req: { method: 'POST', url: '/orders' } }, 'msg'), 'boom (POST /orders)');
    assert.equal(prettyMessage({ msg: 'started' }, 'msg'), 'started');
  });

  it('writes one human-readable line per entry with LOG_FORMAT pretty: local time, level, message, other fields after it', async () => {
    const { stdout, stderr } = await logFrom(`
      const logger = createLogger('info', { format: 'pretty' });
      logger.info(${JSON.stringify(request)}, 'request completed');
      logger.warn({ attempt: 2 }, 'trying again');
      logger.debug('not at info');
    `);
    assert.equal(stderr, '');
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, stdout);
    assert.match(lines[0] as string, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/invitations\/\[token\] 200 3\.1 ms \[c-1\]$/);
    assert.match(lines[1] as string, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN: trying again \{"attempt":2\}$/);
  });

  it('writes JSON lines with LOG_FORMAT json, or auto when stdout is not a terminal', async () => {
    for (const format of ['json', 'auto']) {
      const { stdout } = await logFrom(`createLogger('info', { format: '${format}' }).info({ n: 1 }, 'hello');`);
      const line = JSON.parse(stdout) as Record<string, unknown>;
      assert.equal(line.msg, 'hello');
      assert.equal(line.service, 'portway');
      assert.equal(line.n, 1);
    }
  });

  it('keeps credentials out of pretty lines as out of JSON ones', async () => {
    const { stdout } = await logFrom(`
      createLogger('info', { format: 'pretty' }).info({ req: { method: 'GET', url: '/x', headers: { authorization: 'Bearer secret-1' } } }, 'x');
      createLogger('info', { format: 'json' }).info({ headers: { 'x-api-key': 'secret-2' } }, 'y');
    `);
    assert.ok(!stdout.includes('secret-1') && !stdout.includes('secret-2'), stdout);
  });
});

describe('the command line logger', () => {
  it('logs warnings and errors only, or less when LOG_LEVEL says so', () => {
    for (const [logLevel, level] of [['trace', 'warn'], ['debug', 'warn'], ['info', 'warn'], ['warn', 'warn'], ['error', 'error'], ['silent', 'silent']]) {
      assert.equal(createCliLogger({ logLevel: logLevel as string, logFormat: 'json' }).level, level, logLevel);
    }
  });

  it('writes to stderr, never to stdout', async () => {
    const { stdout, stderr } = await logFrom(`
      const logger = createCliLogger({ logLevel: 'info', logFormat: 'json' });
      logger.info('not shown');
      logger.warn('shown');
    `);
    assert.equal(stdout, '');
    const lines = stderr.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines.map((l) => l.msg), ['shown']);
  });
});
