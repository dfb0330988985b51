import type { Queryable } from '../../platform/db/pool.js';
import type { ErpChargeLine, ErpOrder, ErpOrderLine } from './erp.client.js';
import { findPlacedOrder } from './orders.repository.js';

/**
 * The ERP hand-off state of an order (the erp_* columns of `orders`). Every write is guarded by
 * `erp_state = 'Queued'`: once an order is Accepted or Refused nothing here changes it again, so
 * two runs for one order (a stray job, a retry racing a late answer) cannot flip the outcome.
 */

/**
 * Counts an attempt before the ERP is called, in its own statement (committed on return), so an
 * attempt that crashes the process mid-call is still counted. No row: the order is not Queued
 * (or does not exist), and there is nothing to send.
 */
export async function countErpAttempt(db: Queryable, orderNumber: string): Promise<number | undefined> {
  const { rows } = await db.query<{ erp_attempts: number }>(
    `UPDATE orders SET erp_attempts = erp_attempts + 1, erp_last_attempt_at = now(), changed_at = now()
     WHERE order_number = $1 AND erp_state = 'Queued'
     RETURNING erp_attempts`,
    [orderNumber],
  );
  return rows[0]?.erp_attempts;
}

const text = (value: string | boolean | null | undefined): string | null => (typeof value === 'string' ? value : null);

/** The order as the ERP receives it, from the order as stored (orders.repository.ts). */
export async function loadErpOrder(db: Queryable, orderNumber: string): Promise<ErpOrder | undefined> {
  const o = await findPlacedOrder(db, orderNumber);
  if (!o) return undefined;
  const items: ErpOrderLine[] = [];
  const charges: ErpChargeLine[] = [];
  for (const l of o.lines) {
    if (l.line_type === 'Charge') {
      charges.push({
        lineNumber: l.line_number,
        orderLineId: l.order_line_id,
        chargeType: l.charge_type ?? '',
        description: l.description,
        amount: l.line_amount,
        taxAmount: l.tax_amount,
      });
    } else {
      items.push({
        lineNumber: l.line_number,
        orderLineId: l.order_line_id,
        sku: l.sku ?? '',
        description: l.description,
        quantity: l.quantity,
        unitPrice: l.unit_price,
        lineDiscountPercent: l.line_discount_percent,
        lineAmount: l.line_amount,
        taxAmount: l.tax_amount,
      });
    }
  }
  const shipTo = o.ship_to;
  return {
    orderNumber: o.order_number,
    accountNo: o.account_no,
    customerReference: o.customer_reference,
    placedAt: o.placed_at,
    currency: o.currency,
    shipTo: {
      code: o.ship_to_code,
      name: text(shipTo.shipToName),
      address1: text(shipTo.shipToAddress1),
      address2: text(shipTo.shipToAddress2),
      postCode: text(shipTo.shipToPostCode),
      city: text(shipTo.shipToCity),
      state: text(shipTo.shipToState),
      countryRegionCode: text(shipTo.shipToCountryRegionCode),
    },
    lines: items,
    charges,
    totals: { net: o.net_amount, tax: o.tax_amount, freight: o.freight_amount, total: o.total_amount },
  };
}

/** Accepted: the ERP's document number, no reason, no next attempt. False: the order was no longer Queued. */
export async function acceptErpOrder(db: Queryable, orderNumber: string, documentNo: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE orders
     SET erp_state = 'Accepted', erp_document_no = $2, erp_reason = NULL, erp_settled_at = now(),
         erp_next_attempt_at = NULL, changed_at = now()
     WHERE order_number = $1 AND erp_state = 'Queued'`,
    [orderNumber, documentNo],
  );
  return rowCount === 1;
}

/** Refused: final, with the ERP's reason. False: the order was no longer Queued. */
export async function refuseErpOrder(db: Queryable, orderNumber: string, reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE orders
     SET erp_state = 'Refused', erp_reason = $2, erp_settled_at = now(), erp_next_attempt_at = NULL, changed_at = now()
     WHERE order_number = $1 AND erp_state = 'Queued'`,
    [orderNumber, reason],
  );
  return rowCount === 1;
}

/**
 * Still Queued, with why the last attempt failed and when the next one is due: on the database's
 * clock, as the queue's run_at is, and in whole milliseconds so that a JavaScript Date carries it
 * to the queue unchanged. Undefined: the order was no longer Queued, so no next attempt.
 */
export async function postponeErpOrder(db: Queryable, orderNumber: string, reason: string, delayMs: number): Promise<Date | undefined> {
  const { rows } = await db.query<{ erp_next_attempt_at: Date }>(
    `UPDATE orders
     SET erp_reason = $2, erp_next_attempt_at = date_trunc('milliseconds', now() + $3 * interval '1 millisecond'), changed_at = now()
     WHERE order_number = $1 AND erp_state = 'Queued'
     RETURNING erp_next_attempt_at`,
    [orderNumber, reason, delayMs],
  );
  return rows[0]?.erp_next_attempt_at;
}
