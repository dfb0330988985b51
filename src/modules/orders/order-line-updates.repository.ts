import type { Queryable } from '../../platform/db/pool.js';
import type { OrderLineUpdateItem } from './orders.schemas.js';

/** An order line as an update finds it, locked until the batch commits. */
export interface LockedLine {
  order_line_id: string;
  order_number: string;
  line_number: number;
  line_type: 'Item' | 'Charge';
  invoiced_quantity: number;
  shipped_quantity: number;
  cancelled_quantity: number;
  /** fulfilment_updated_at as microseconds since the epoch, exact; null when no update carried one. */
  updated_us: string | null;
  fulfilment_reference: string | null;
}

/**
 * The lines named by id or by order number and line number, locked in id order so that
 * concurrent batches touching the same lines take their locks in the same order.
 */
export async function lockOrderLines(
  q: Queryable, keys: { ids: readonly string[]; numbers: ReadonlyArray<{ orderNumber: string; lineNumber: number }> },
): Promise<LockedLine[]> {
  if (keys.ids.length === 0 && keys.numbers.length === 0) return [];
  const { rows } = await q.query<LockedLine>(
    `SELECT l.order_line_id::text, l.order_number, l.line_number, l.line_type, l.invoiced_quantity, l.shipped_quantity,
            l.cancelled_quantity, (extract(epoch FROM l.fulfilment_updated_at) * 1000000)::bigint::text AS updated_us,
            l.fulfilment_reference
       FROM order_lines l
      WHERE l.order_line_id = ANY($1::uuid[])
         OR (l.order_number, l.line_number) IN (SELECT n, x FROM unnest($2::text[], $3::integer[]) AS k(n, x))
      ORDER BY l.order_line_id
      FOR UPDATE`,
    [keys.ids, keys.numbers.map((k) => k.orderNumber), keys.numbers.map((k) => k.lineNumber)],
  );
  return rows;
}

/** Each text instant as exact microseconds since the epoch, read by PostgreSQL as it stores them. */
async function microseconds(q: Queryable, instants: readonly string[]): Promise<Map<string, bigint>> {
  const distinct = [...new Set(instants)];
  if (distinct.length === 0) return new Map();
  const { rows } = await q.query<{ t: string; us: string }>(
    'SELECT t, (extract(epoch FROM t::timestamptz) * 1000000)::bigint::text AS us FROM unnest($1::text[]) AS t',
    [distinct],
  );
  return new Map(rows.map((r) => [r.t, BigInt(r.us)]));
}

interface LineState {
  invoiced: number;
  shipped: number;
  cancelled: number;
  updatedUs: bigint | null;
  /** The lastUpdatedAt text to store; null keeps the stored one. */
  updatedText: string | null;
  reference: string | null;
  changed: boolean;
}

/**
 * Applies updates in request order, each to the line as the previous one left it: one older than
 * the line's last lastUpdatedAt is skipped; otherwise its totals replace the line's. Only lines
 * that end up different are written, so an identical re-send moves no `changed_at`.
 */
export async function applyLineUpdates(q: Queryable, updates: ReadonlyArray<{ line: LockedLine; item: OrderLineUpdateItem }>): Promise<void> {
  if (updates.length === 0) return;
  const times = await microseconds(q, updates.map((u) => u.item.lastUpdatedAt).filter((t): t is string => typeof t === 'string'));
  const states = new Map<string, LineState>();
  for (const { line, item } of updates) {
    let state = states.get(line.order_line_id);
    if (state === undefined) {
      state = {
        invoiced: line.invoiced_quantity, shipped: line.shipped_quantity, cancelled: line.cancelled_quantity,
        updatedUs: line.updated_us === null ? null : BigInt(line.updated_us), updatedText: null, reference: line.fulfilment_reference, changed: false,
      };
      states.set(line.order_line_id, state);
    }
    const at = typeof item.lastUpdatedAt === 'string' ? times.get(item.lastUpdatedAt) as bigint : null;
    if (at !== null && state.updatedUs !== null && at < state.updatedUs) continue;
    const reference = item.lastUpdatedReference ?? null;
    if (state.invoiced !== item.invoicedQuantity || state.shipped !== item.shippedQuantity || state.cancelled !== item.cancelledQuantity
        || state.reference !== reference || (at !== null && at !== state.updatedUs)) {
      state.changed = true;
    }
    state.invoiced = item.invoicedQuantity;
    state.shipped = item.shippedQuantity;
    state.cancelled = item.cancelledQuantity;
    state.reference = reference;
    if (at !== null) {
      state.updatedUs = at;
      state.updatedText = item.lastUpdatedAt as string;
    }
  }
  const changed = [...states].filter(([, s]) => s.changed).map(([id, s]) => ({
    id, invoiced: s.invoiced, shipped: s.shipped, cancelled: s.cancelled, updated_at: s.updatedText, reference: s.reference,
  }));
  if (changed.length === 0) return;
  await q.query(
    `UPDATE order_lines l
        SET invoiced_quantity = u.invoiced, shipped_quantity = u.shipped, cancelled_quantity = u.cancelled,
            fulfilment_updated_at = coalesce(u.updated_at::timestamptz, l.fulfilment_updated_at),
            fulfilment_reference = u.reference, changed_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, invoiced integer, shipped integer, cancelled integer, updated_at text, reference text)
      WHERE l.order_line_id = u.id`,
    [JSON.stringify(changed)],
  );
}
