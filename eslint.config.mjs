import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'reports/', '.stryker-tmp/', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-console': ['error', { allow: ['warn', 'error'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['src/cli/**', 'bench/**', 'test/**'], rules: { 'no-console': 'off' } },
  // Tests read HTTP bodies as a client does: untyped JSON, checked by assertions.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
