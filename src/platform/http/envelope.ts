import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { Metrics } from './metrics.js';
import type { BatchDefinition, ResultItem } from '../batch/definition.js';
import { compileItemValidator, type ItemError, type ItemValidator } from '../schema/item-validator.js';
import { errors, ProblemSchema } from './problem.js';
import { isDatabaseUnavailable, withTransaction, type Pool } from '../db/pool.js';
import type { WriteGate } from './write-gate.js';
import { noteOnRequestLine } from './request-log.js';
import { jsonBodyBytes } from './json-body.js';

/**
 * The integration envelope pipeline, shared by every `PUT /api/integration/*` and `PUT /api/admin/*` endpoint:
 * envelope checks → per-item validation with JSON-pointer paths → natural keys → duplicates
 * (last accepted occurrence wins, every occurrence answered) → one transaction for everything
 * accepted (with the definition's stored-row rules checked inside it) → results in request order.
 */

export const MAX_BATCH_ITEMS = 1000;
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export type { BatchDefinition, ChildResult, ResultItem } from '../batch/definition.js';

export interface PreparedBatch<TItem> {
  readonly definition: BatchDefinition<TItem>;
  readonly validate: ItemValidator;
}

export function prepareBatch<TItem>(definition: BatchDefinition<TItem>): PreparedBatch<TItem> {
  return { definition, validate: compileItemValidator(definition.itemSchema) };
}

/** A problem at a key field, inside it, or at one of its parents (`/account` missing) breaks the key. */
function touchesKey(path: string, keyFields: readonly string[]): boolean {
  return path === '' || keyFields.some((k) => path === k || path.startsWith(`${k}/`) || k.startsWith(`${path}/`));
}

export interface BatchOutcome { results: ResultItem[]; accepted: number; rejected: number }

/**
 * PostgreSQL refused the JSON text itself (a number beyond `numeric`, nesting too deep, an
 * unsupported escape): JavaScript's parser took it, so the batch is written from the parsed items.
 */
const JSON_TEXT_REFUSED = new Set(['22P02', '22P05', '22003', '54001']);
function jsonTextRefused(error: unknown): boolean {
  return JSON_TEXT_REFUSED.has((error as { code?: string }).code ?? '');
}

/**
 * Validates and stores one batch. A database failure throws a retryable 503 and commits nothing.
 * With a gate, the transaction waits for a turn (validation does not: it needs no connection), and
 * a batch that gets none is refused with the gate's 503 before any database work.
 *
 * `body`, when given, is the bytes `data` was parsed from (an envelope `{data, ...}`) as
 * `jsonBodyBytes` (json-body.ts) hands them out: valid UTF-8 without a `\u` escape, so every string
 * in the items is storable text already and the validation does not check each one again
 * (`ItemValidator`). With `body` and a definition that has `writeJson`, the accepted items are
 * written from those bytes: PostgreSQL reads them as sent, and the service does not serialise them
 * again (about a third of its CPU per catalogue item). If PostgreSQL refuses the JSON text where
 * JavaScript took it, that transaction is rolled back and the batch written from the parsed items,
 * as without `body`.
 */
export async function processBatch<TItem>(
  batch: PreparedBatch<TItem>,
  data: readonly unknown[],
  pool: Pool,
  gate?: WriteGate,
  body?: Buffer,
): Promise<BatchOutcome> {
  const { definition } = batch;
  const results: ResultItem[] = new Array(data.length);
  /** Index in `data` of the last accepted occurrence of each key. */
  const latest = new Map<string, number>();
  const accepted: number[] = [];
  let rejected = 0;

  const textsProven = body !== undefined;
  data.forEach((raw, index) => {
    let problems = batch.validate(raw, textsProven);
    if (problems.length === 0 && definition.check) problems = definition.check(raw as TItem);
    if (problems.length > 0) {
      rejected += 1;
      const keyBroken = problems.some((p) => touchesKey(p.path, definition.keyFields));
      const key = keyBroken ? `#${index}` : definition.keyOf(raw as TItem);
      results[index] = { key, outcome: 'Rejected', errors: problems };
      return;
    }
    const item = raw as TItem;
    const key = definition.keyOf(item);
    latest.set(key, index);
    accepted.push(index);
    results[index] = definition.result ? definition.result(item, key) : { key, outcome: 'Upserted' };
  });

  const picks = definition.deduplicate === false
    ? accepted
    : [...latest.keys()].sort().map((k) => latest.get(k) as number);
  const items = picks.map((i) => data[i] as TItem);
  let refused = new Map<string, ItemError[]>();
  if (items.length > 0) {
    const write = (fromJson: boolean) => () => withTransaction(pool, async (tx) => {
      const found = definition.checkStored ? await definition.checkStored(tx, items) : new Map<string, ItemError[]>();
      const keep = (i: number) => !found.has(definition.keyOf(data[i] as TItem));
      const kept = found.size === 0 ? picks : picks.filter(keep);
      if (kept.length === 0) return found;
      const keptItems = kept.map((i) => data[i] as TItem);
      if (fromJson && body && definition.writeJson) await definition.writeJson(tx, { body, picks: kept }, keptItems);
      else await definition.write(tx, keptItems);
      return found;
    });
    const run = (fromJson: boolean) => (gate ? gate.run(write(fromJson)) : write(fromJson)());
    try {
      const fromJson = body !== undefined && definition.writeJson !== undefined;
      try {
        refused = await run(fromJson);
      } catch (error) {
        if (!fromJson || !jsonTextRefused(error)) throw error;
        refused = await run(false);
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        const unavailable = errors.databaseUnavailable();
        unavailable.cause = error;
        throw unavailable;
      }
      throw error;
    }
  }
  if (refused.size > 0) {
    data.forEach((raw, index) => {
      const result = results[index] as ResultItem;
      if (result.outcome === 'Rejected') return;
      const problems = refused.get(definition.keyOf(raw as TItem));
      if (!problems) return;
      results[index] = { key: result.key, outcome: 'Rejected', errors: problems };
      rejected += 1;
    });
  }
  return { results, accepted: data.length - rejected, rejected };
}

const ItemErrorSchema = Type.Object({ path: Type.String(), message: Type.String() });
const ChildResultSchema = Type.Object({ key: Type.String(), outcome: Type.String() });
export const ResultItemSchema = Type.Object({
  key: Type.String({ description: 'Natural key of the item, or #<index> when the key itself is missing or invalid' }),
  outcome: Type.Union([Type.Literal('Upserted'), Type.Literal('Rejected')]),
  type: Type.Optional(Type.String()),
  children: Type.Optional(Type.Array(ChildResultSchema)),
  errors: Type.Optional(Type.Array(ItemErrorSchema)),
});
export const BatchResponseSchema = Type.Object({ data: Type.Array(ResultItemSchema) });

export function envelopeSchema(itemSchema: TSchema): TSchema {
  return Type.Object({
    source: Type.String({ description: 'Which upstream system sent the batch' }),
    timestamp: Type.Optional(Type.String({ format: 'date-time', description: "Sender's send time; informational only" })),
    data: Type.Array(itemSchema, { maxItems: MAX_BATCH_ITEMS, description: 'Each item is validated and answered on its own' }),
  });
}

/**
 * Only the envelope is validated before the handler: item problems are answered per item, not by
 * refusing the whole request.
 */
function envelopeValidator(body: unknown): { value: unknown } | { error: Error } {
  const refuse = (detail: string, path: string) =>
    ({ error: errors.badRequest(detail, [{ path, message: detail }]) });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse('The body must be a JSON object {source, data}.', '');
  }
  const envelope = body as Record<string, unknown>;
  if (typeof envelope.source !== 'string') {
    return refuse(envelope.source === undefined ? 'source is required.' : 'source must be a string.', '/source');
  }
  if (!Array.isArray(envelope.data)) {
    return refuse(envelope.data === undefined ? 'data is required.' : 'data must be an array.', '/data');
  }
  return { value: body };
}

export interface BatchRouteDeps {
  pool: Pool;
  metrics: Metrics;
  /** The process's turns for batch transactions (INTEGRATION_WRITE_*); none: unbounded. */
  writeGate?: WriteGate;
}

export interface BatchRouteDocs {
  summary: string;
  tags: string[];
  /** The OpenAPI security scheme the scope's auth hook enforces: `integrationBearer` unless given (`adminBearer` under `/api/admin`). */
  security?: string;
}

/** Registers `PUT url` for a batch definition: the route is the envelope schema plus one pipeline call. */
export function registerBatchRoute<TItem>(
  app: FastifyInstance,
  url: string,
  definition: BatchDefinition<TItem>,
  deps: BatchRouteDeps,
  docs: BatchRouteDocs,
): void {
  const batch = prepareBatch(definition);
  app.put(url, {
    bodyLimit: MAX_BODY_BYTES,
    schema: {
      summary: docs.summary,
      tags: docs.tags,
      security: [{ [docs.security ?? 'integrationBearer']: [] }],
      body: envelopeSchema(definition.itemSchema),
      response: {
        200: BatchResponseSchema,
        400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 413: ProblemSchema, 503: ProblemSchema,
      },
    },
    validatorCompiler: () => envelopeValidator,
  }, async (request) => {
    const data = (request.body as { data: unknown[] }).data;
    if (data.length > MAX_BATCH_ITEMS) throw errors.tooManyItems(data.length, MAX_BATCH_ITEMS);
    const outcome = await processBatch(batch, data, deps.pool, deps.writeGate, jsonBodyBytes(request.body));
    deps.metrics.integrationItems.inc({ endpoint: definition.name, outcome: 'accepted' }, outcome.accepted);
    deps.metrics.integrationItems.inc({ endpoint: definition.name, outcome: 'rejected' }, outcome.rejected);
    noteOnRequestLine(request, { batch: { endpoint: definition.name, accepted: outcome.accepted, rejected: outcome.rejected } });
    return { data: outcome.results };
  });
}
