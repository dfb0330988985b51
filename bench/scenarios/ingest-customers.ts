import { upsertCustomers } from '../../src/modules/customers/customers.repository.js';
import type { CustomerItem } from '../../src/modules/customers/customers.schemas.js';
import { customerBatch } from '../../src/modules/customers/customers.service.js';
import { MAX_BATCH_ITEMS } from '../../src/platform/http/envelope.js';
import { chunk } from '../lib/catalogue.js';
import { generateCustomers } from '../lib/customers.js';
import { INGEST_OPTIONS, assertServiceAccepts, positiveIntegerOption, runIngest, type IngestSpec } from '../lib/ingest.js';
import type { Scenario } from '../lib/scenario.js';

/**
 * ingest-customers: customer accounts with their ship-tos through real HTTP, against the baseline
 * of the same repository call (`upsertCustomers(tx, items)`) made straight on the database — the
 * method, rounds, checks and report are bench/lib/ingest.ts's.
 *
 * Data: --customers generated accounts (default 20,000; bench/lib/customers.ts), each with 1–5
 * ship-tos (3 on average) and every field filled, no admin; batches of 1,000, the first two of
 * which warm up both paths. Tables: accounts and ship_tos.
 */

const DEFAULT_CUSTOMERS = 20_000;
/** As many warm-up batches as ingest's Luma part, so both scenarios warm up alike. */
const WARM_UP_BATCHES = 2;

/** What is written and how (the baseline's worker thread imports it). */
export const spec: IngestSpec<CustomerItem> = {
  module: import.meta.url,
  name: 'ingest-customers',
  path: '/customer',
  tables: [
    { name: 'accounts', key: ['account_no'] },
    { name: 'ship_tos', key: ['account_no', 'ship_to_code'] },
  ],
  keyOf: customerBatch.keyOf,
  write: upsertCustomers,
};

const scenario: Scenario = {
  name: 'ingest-customers',
  description: 'Customers with ship-tos upsert: HTTP (PUT /api/integration/customer) against a straight SQL baseline',
  options: {
    ...INGEST_OPTIONS,
    customers: `number of generated customer accounts (default ${DEFAULT_CUSTOMERS.toLocaleString('en-US')})`,
  },
  run(ctx) {
    const count = positiveIntegerOption(ctx.options, 'customers', DEFAULT_CUSTOMERS);
    return runIngest(ctx, spec, () => {
      ctx.progress(`generating ${count.toLocaleString('en-US')} customers and checking them against the service's schema`);
      const customers = generateCustomers(count);
      assertServiceAccepts(customerBatch, customers);
      const shipTos = customers.reduce((sum, c) => sum + (c.shipToAddresses?.length ?? 0), 0);
      const batches = chunk(customers, MAX_BATCH_ITEMS);
      const warmUp = Math.min(WARM_UP_BATCHES, batches.length);
      return {
        batches,
        warmUp: { batches: warmUp, label: `the first ${warmUp} batch${warmUp === 1 ? '' : 'es'}` },
        summary: `${count.toLocaleString('en-US')} customers with ${shipTos.toLocaleString('en-US')} ship-tos ` +
          `(${(shipTos / count).toFixed(2)} per account)`,
        expectedRows: { accounts: count, ship_tos: shipTos },
        json: { ship_tos: shipTos },
      };
    });
  },
};

export default scenario;
