import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/modules', '**/modules/**'],
          message: 'src/platform must not import from src/modules: declare the interface in the platform and wire the module in src/app.ts.',
        }],
      }],
    },
  },
  {
    // A module's services say what they refuse in their own terms (platform/refusal.ts); only its
    // routes know HTTP, and translate (the problem tables beside them).
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*.routes.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/platform/http', '**/platform/http/**'],
          message: 'Only a module\'s *.routes.ts may import src/platform/http: throw the module\'s refusal (platform/refusal.ts) and map it to a problem in its routes.',
        }],
      }],
    },
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
