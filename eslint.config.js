import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
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
    files: ['src/config.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**', 'bin/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
