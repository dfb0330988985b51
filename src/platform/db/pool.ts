import pg from 'pg';

/** numeric, date and timestamp columns stay strings: exact decimals and date-only values never pass through floats or time zones. */
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export type Queryable = Pick<pg.PoolClient, 'query'>;
export type Pool = pg.Pool;

export interface PoolOptions {
  url: string;
  max: number;
  /** How long a statement may wait for a row lock before the batch is refused as retryable. */
  lockTimeoutMs?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  /**
   * The URL goes through a pooler in transaction mode (PgBouncer's `pool_mode = transaction`), which
   * hands each transaction, or each statement outside one, to whichever server connection is free:
   * nothing may live in the session. So the timeouts are not sent as startup parameters (PgBouncer
   * refuses them, or drops them when told to ignore them) but set with each BEGIN (`SET LOCAL`, in
   * the same round trip), and statements are not prepared under a name (a name prepared on one
   * server connection is missing, or already taken, on the next). Statements outside a transaction
   * run with the server's default timeouts. decisions.md "PgBouncer in transaction mode".
   */
  transactionPooler?: boolean;
  /** How long a checkout may wait to open a connection (default 10 s). */
  connectionTimeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  const lockTimeout = options.lockTimeoutMs ?? 10_000;
  const statementTimeout = options.statementTimeoutMs ?? 60_000;
  const pooled = options.transactionPooler === true;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    // A connection once opened stays open (pg's default closes one idle for 10 s): opening one under
    // load (a backend forked and authenticated, its catalogue caches and named statements built
    // again) held the requests queued behind it 30–150 ms, most of the lookup's slowest 1 % beside
    // ingest (the load trial), and bursts came every time the pool had shrunk between two.
    idleTimeoutMillis: 0,
    application_name: options.applicationName ?? 'portway',
    // JIT compilation off: the planner's estimate for a search over bitmaps (search.bitmaps.ts) passes
    // jit_above_cost, and compiling its ~300 expressions took 260 ms where the statement runs in 5.
    // Behind a transaction pooler no startup option reaches the server: set `jit = off` there (operations.md).
    ...(pooled ? {} : { lock_timeout: lockTimeout, statement_timeout: statementTimeout, options: '-c jit=off' }),
  });
  guardConnections(pool);
  if (pooled) {
    const begin = `BEGIN; SET LOCAL lock_timeout = ${Math.trunc(lockTimeout)}; SET LOCAL statement_timeout = ${Math.trunc(statementTimeout)}`;
    pool.on('connect', (client) => {
      BEGIN_STATEMENT.set(client, begin);
      withoutStatementNames(client);
    });
  }
  return pool;
}

/** What `inTransaction` sends to begin on a client of a pool behind a transaction pooler (createPool). */
const BEGIN_STATEMENT = new WeakMap<pg.ClientBase, string>();

/**
 * Makes `client` send every statement unnamed: a query given as `{ name, text }` (prepared once per
 * connection, then only bound) is parsed each time instead, as PgBouncer before 1.21 needs in
 * transaction mode. A submittable (a cursor, a stream) is passed on as it is.
 */
function withoutStatementNames(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const unnamed = (config: unknown): unknown => {
    if (config === null || typeof config !== 'object' || typeof (config as { submit?: unknown }).submit === 'function') return config;
    if ((config as { name?: unknown }).name === undefined) return config;
    const { name: _name, ...rest } = config as { name?: string };
    return rest;
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => query(unnamed(config), ...rest);
}

/**
 * A connection that dies (a database restart, a failover, a network cut) is an event to recover
 * from, never a reason for the process to exit. pg emits `error` on the client; the pool listens
 * only while a client is idle, so one borrowed for a transaction, or one that is connecting, had no
 * listener and the error was uncaught. Every client gets a listener for its whole life: the query in
 * flight fails with the error (answered 503 and retried by its caller), the client is discarded on
 * release, and the next checkout opens a new connection.
 */
export function guardConnections(pool: pg.Pool, onLost: (error: Error) => void = () => undefined): void {
  pool.on('error', onLost);
  pool.on('connect', (client) => {
    client.on('error', onLost);
  });
}

/**
 * Opens `count` connections of `pool` at once and runs `warm` on each, then returns them to the pool
 * (which keeps them: idleTimeoutMillis 0); the number opened. A connection that cannot open or warm
 * is not kept; the first such error is thrown once the others are back in the pool.
 */
export async function openConnections(pool: pg.Pool, count: number, warm: (client: pg.PoolClient) => Promise<void>): Promise<number> {
  const opened = await Promise.allSettled(Array.from({ length: count }, () => pool.connect()));
  const clients = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const warmed = await Promise.allSettled(clients.map((client) => warm(client)));
  warmed.forEach((r, i) => (clients[i] as pg.PoolClient).release(r.status === 'rejected'));
  const failed = [...opened, ...warmed].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return clients.length;
}

/** Runs `work` in one transaction on one connection: commit on success, rollback on any error. */
export async function withTransaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await inTransaction(client, work, () => { broken = true; });
  } finally {
    client.release(broken);
  }
}

/**
 * BEGIN, `work`, COMMIT on a connection the caller holds (one that keeps a session lock across
 * transactions, say); ROLLBACK when anything fails, and the failure rethrown. A ROLLBACK that fails
 * too leaves the connection unusable: `onBroken` is told, so the caller can discard it.
 */
export async function inTransaction<T>(client: pg.PoolClient, work: (tx: pg.PoolClient) => Promise<T>, onBroken: () => void = () => undefined): Promise<T> {
  try {
    await client.query(BEGIN_STATEMENT.get(client) ?? 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      onBroken();
    }
    throw error;
  }
}

/**
 * SQLSTATEs that say the database could not do the work now, though the same request may succeed
 * later: class 08 (connection exception), 53 (insufficient resources), 57P01/57P02/57P03 (admin
 * shutdown, crash shutdown, cannot connect now), 57014 (statement timeout or cancel), 40001/40P01
 * (serialization failure, deadlock), 55P03 (lock not available: our lock_timeout).
 */
const RETRYABLE_SQLSTATE = /^(08|53)...$|^(57P01|57P02|57P03|57014|40001|40P01|55P03)$/;

/**
 * Errors that mean the database is unavailable for now (answered 503 with Retry-After): the
 * connection failing, and PostgreSQL's connection-class and retryable SQLSTATEs above. Any other
 * error PostgreSQL raises (a data, syntax or constraint error: classes 22, 42, 23…) is a fault of
 * the request or the code: retrying the same request would fail the same way, so it is a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) return RETRYABLE_SQLSTATE.test(error.code ?? '');
  const code = (error as NodeJS.ErrnoException).code;
  if (code && /^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH)/.test(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(error.message);
}
