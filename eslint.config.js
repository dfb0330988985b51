import fs from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/** The modules under src/modules: one folder each, whose index.ts is its front door. */
const MODULES = fs.readdirSync(new URL('./src/modules/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const FRONT_DOOR = 'Import a module only through its front door, src/modules/<module>/index.ts: what it exports there is what '
  + 'others may use; the rest is its own. Export what is missing from its index (a service-level function, never its repository).';

/** A specifier that reaches past a module's index.ts; `except` is the importing file's own module. */
const pastFrontDoor = (except) => {
  const other = except === undefined ? '[a-z0-9-]+' : `(?!${except}/)[a-z0-9-]+`;
  return [
    { regex: `(^|/)modules/${other}/(?!index\\.js$)`, message: FRONT_DOOR },
    // From src/modules/<module>/: a sibling module's file.
    ...(except === undefined ? [] : [{ regex: `^\\.\\./${other}/(?!index\\.js$)`, message: FRONT_DOOR }]),
  ];
};

// A module's services say what they refuse in their own terms (platform/refusal.ts); only its
// routes know HTTP, and translate (the problem tables beside them).
const PLATFORM_HTTP = {
  group: ['**/platform/http', '**/platform/http/**'],
  message: 'Only a module\'s *.routes.ts may import src/platform/http: throw the module\'s refusal (platform/refusal.ts) and map it to a problem in its routes.',
};
const OWN_INDEX = {
  regex: '^\\./index\\.js$',
  message: 'A module\'s files import each other directly: its index.ts is for other modules, and importing it from inside makes a cycle.',
};
const REPOSITORY = {
  regex: '\\.repository\\.js$',
  message: 'A module\'s index exports no repository: make what others need a service-level function (SQL stays the module\'s own).',
};

const restrict = (patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', {
        object: 'process', property: 'env',
        message: 'Read configuration through src/config.ts only.',
      }],
    },
  },
  {
    // The platform is infrastructure that modules build on; it must never know a module. What it
    // needs from one it declares as an interface, and src/app.ts hands it the module's implementation.
    files: ['src/platform/**/*.ts'],
    rules: restrict([{
      group: ['**/modules', '**/modules/**'],
      message: 'src/platform must not import from src/modules: declare the interface in the platform and wire the module in src/app.ts.',
    }]),
  },
  // One front door per module (docs/decisions.md): app.ts, main.ts, the worker, the CLI and the
  // portal import a module only through its index.ts, and so does every other module. Each file
  // gets one block for the rule (a later block would replace an earlier one's patterns): one for
  // what lies outside src/modules, and per module one for its files, its routes and its index.
  // Tests and benchmarks may import a module's internals to test them.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/**', 'src/platform/**'],
    rules: restrict(pastFrontDoor()),
  },
  ...MODULES.flatMap((name) => [
    {
      files: [`src/modules/${name}/**/*.ts`],
      ignores: [`src/modules/${name}/**/*.routes.ts`, `src/modules/${name}/index.ts`],
      rules: restrict([...pastFrontDoor(name), OWN_INDEX, PLATFORM_HTTP]),
    },
    {
      files: [`src/modules/${name}/**/*.routes.ts`],
      rules: restrict([...pastFrontDoor(name), OWN_INDEX]),
    },
    {
      files: [`src/modules/${name}/index.ts`],
      rules: restrict([...pastFrontDoor(name), PLATFORM_HTTP, REPOSITORY]),
    },
  ]),
  {
    // The CLI loads modules when a command runs (`import()`), which the rule above does not see.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        // \x2F is "/": esquery's regular expressions cannot contain a slash.
        selector: 'ImportExpression[source.value=/(^|\\x2F)modules\\x2F[a-z0-9-]+\\x2F(?!index\\.js$)/]',
        message: FRONT_DOOR,
      }],
    },
  },
  {
    // No import cycles in src/: between modules (through their index files) they would load a
    // module half-initialised (ESM's temporal dead zone), and within one they blur its layers.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Specifiers name the compiled .js; the resolver finds the .ts beside it, which is parsed as TypeScript.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/config.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**', 'bin/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
