import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../config.js';
import type { Brand } from '../modules/catalogue/index.js';
import { withDatabase } from './with-database.js';

/** `portway brands set|list`: the brand reference data that brand entitlement reads. */

function brandCode(text: string): string {
  const code = text.trim();
  if (code === '' || [...code].length > 20 || code.includes(',')) {
    throw new InvalidArgumentError('a brand code is 1 to 20 characters without commas (as a product brandCode).');
  }
  return code;
}

export async function brandsSetCommand(config: Config, code: string, opts: { name: string; restricted?: boolean }): Promise<void> {
  const { setBrand } = await import('../modules/catalogue/index.js');
  const brand: Brand = { code, name: opts.name, restricted: opts.restricted === true };
  await withDatabase(config, (db) => setBrand(db.pool, brand));
  process.stdout.write(`brand ${brand.code} (${brand.name}) is ${brand.restricted ? 'restricted: only accounts that list it may buy it' : 'not restricted'}\n`);
}

export async function brandsListCommand(config: Config): Promise<void> {
  const { listBrands } = await import('../modules/catalogue/index.js');
  const brands = await withDatabase(config, (db) => listBrands(db.pool));
  if (brands.length === 0) {
    process.stdout.write('no brands (every brand code counts as not restricted)\n');
    return;
  }
  for (const b of brands) process.stdout.write(`${b.code}\t${b.restricted ? 'restricted' : 'open'}\t${b.name}\n`);
}

export function registerBrandsCommands(program: Command, config: () => Config): void {
  const brands = program.command('brands').description('Brand reference data used by brand entitlement');
  brands.command('set')
    .description('Create or update a brand; --restricted hides it from accounts that do not list it')
    .argument('<code>', 'brand code, as products send it in brandCode', brandCode)
    .requiredOption('--name <name>', 'display name (1 to 100 characters)', (v: string) => {
      if (v.trim() === '' || [...v].length > 100) throw new InvalidArgumentError('--name must be 1 to 100 characters.');
      return v;
    })
    .option('--restricted', 'only accounts whose allowedBrands or indentBrands list it may see and buy it')
    .action(async (code: string, opts: { name: string; restricted?: boolean }) => brandsSetCommand(config(), code, opts));
  brands.command('list')
    .description('List brands')
    .action(async () => brandsListCommand(config()));
}
