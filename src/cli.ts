import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { Config } from './config.js';
import { registerBrandsCommands } from './cli/brands.js';
import { registerKeysCommands } from './cli/keys.js';
import { registerIndexCommands } from './cli/search-index.js';
import { parseTtl } from './cli/token.js';
import { PACKAGE_ROOT } from './platform/paths.js';

/**
 * `portway`. A command loads what it needs when it runs (the `import()`s below and in src/cli/),
 * so `--help`, `--version` and `token mint` do not wait for the HTTP service, the database or the
 * job queue to load. Every command reads the same configuration as the service (same DATA_DIR,
 * DATABASE_URL), loaded before its action runs.
 */
let configModule: typeof import('./config.js') | undefined;
function config(): Config {
  if (!configModule) throw new Error('the configuration is loaded before a command runs (preAction)');
  return configModule.loadConfig();
}

const { version } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

const program = new Command()
  .name('portway')
  .description('Portway: B2B wholesale commerce service')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  .hook('preAction', async () => {
    configModule = await import('./config.js');
  });

program.command('serve')
  .description('Run the HTTP service (what `npm start` runs)')
  .action(async () => (await import('./cli/serve.js')).serveCommand(config()));

program.command('worker')
  .description('Run only the job worker (provisioning, invitations), e.g. with WORKER_IN_PROCESS=false on the HTTP processes')
  .action(async () => (await import('./worker.js')).runWorkerProcess(config()));

program.command('token')
  .description('Integration tokens')
  .command('mint')
  .description('Print a JWT that the integration surface (or, with --scope admin, the admin surface) accepts under the current configuration')
  .option('--scope <scope>', 'space-separated scopes: integration:write opens /api/integration, admin opens /api/admin', 'integration:write')
  .option('--ttl <duration>', 'lifetime such as 1h, 30m, 3600s', (v) => {
    try { return parseTtl(v); } catch (e) { throw new InvalidArgumentError((e as Error).message); }
  }, 3600)
  .option('--subject <name>', 'subject (sub claim)', 'portway-cli')
  .action(async (opts: { scope: string; ttl: number; subject: string }) => (await import('./cli/token.js')).tokenMintCommand(config(), opts));

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
  .action(async (opts: { url?: string; email?: string; timeout: number }) => (await import('./cli/demo.js')).demoCommand(config(), opts));

registerBrandsCommands(program, config);

registerIndexCommands(program, config);

program.command('db')
  .description('Database')
  .command('migrate')
  .description('Apply pending migrations')
  .action(async () => (await import('./cli/db.js')).migrateCommand(config()));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (configModule && error instanceof configModule.ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  process.stderr.write(`portway: ${(error as Error).message}\n`);
  process.exit(1);
}
