import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { registerBrandsCommands } from './cli/brands.js';
import { migrateCommand } from './cli/db.js';
import { demoCommand } from './cli/demo.js';
import { registerKeysCommands } from './cli/keys.js';
import { registerIndexCommands } from './cli/search-index.js';
import { serveCommand } from './cli/serve.js';
import { tokenMintCommand, parseTtl } from './cli/token.js';
import { runWorkerProcess } from './worker.js';

/** `portway`: every command reads the same configuration as the service (same DATA_DIR, DATABASE_URL). */
function config(): Config {
  return loadConfig();
}

const program = new Command()
  .name('portway')
  .description('Portway: B2B wholesale commerce service')
  .showHelpAfterError();

program.command('serve')
  .description('Run the HTTP service (what `npm start` runs)')
  .action(async () => serveCommand(config()));

program.command('worker')
  .description('Run only the job worker (provisioning, invitations), e.g. with WORKER_IN_PROCESS=false on the HTTP processes')
  .action(async () => runWorkerProcess(config()));

program.command('token')
  .description('Integration tokens')
  .command('mint')
  .description('Print a JWT that the integration surface (or, with --scope admin, the admin surface) accepts under the current configuration')
  .option('--scope <scope>', 'space-separated scopes: integration:write opens /api/integration, admin opens /api/admin', 'integration:write')
  .option('--ttl <duration>', 'lifetime such as 1h, 30m, 3600s', (v) => {
    try { return parseTtl(v); } catch (e) { throw new InvalidArgumentError((e as Error).message); }
  }, 3600)
  .option('--subject <name>', 'subject (sub claim)', 'portway-cli')
  .action(async (opts: { scope: string; ttl: number; subject: string }) => tokenMintCommand(config(), opts));

registerKeysCommands(program, config);

program.command('demo')
  .description('Load a demo world (catalogue, stock, prices, freight, tax, a customer with a buyer) into the running service and print the buyer\'s sign-in link')
  .option('--url <url>', 'the running service (default: http://127.0.0.1:PORT, the address `npm start` listens on)')
  .option('--email <address>', 'the demo buyer\'s email; another address gets an invitation of its own', (v: string) => {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) throw new InvalidArgumentError('--email must be an email address.');
    return v;
  })
  .option('--timeout <seconds>', 'how long to wait for the invitation mail', (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > 3600) throw new InvalidArgumentError('--timeout must be a whole number of seconds from 1 to 3600.');
    return n;
  }, 60)
  .action(async (opts: { url?: string; email?: string; timeout: number }) => demoCommand(config(), opts));

registerBrandsCommands(program, config);

registerIndexCommands(program, config);

program.command('db')
  .description('Database')
  .command('migrate')
  .description('Apply pending migrations')
  .action(async () => migrateCommand(config()));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  process.stderr.write(`portway: ${(error as Error).message}\n`);
  process.exit(1);
}
