import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Each feature, with the features it may import (their rules are its rules' ground). */
const FEATURE_DEPENDENCIES = {
  directory: [],
  resources: ['directory'],
  privacy: ['resources', 'directory'],
  files: ['resources', 'directory'],
  audit: ['resources', 'directory'],
  'api-keys': ['directory'],
  applications: ['directory'],
};
const FEATURES = Object.keys(FEATURE_DEPENDENCIES);
const SHARED = ['api', 'commands', 'projections', 'ports', 'domain', 'contract', 'config', 'observability'];

/** What each folder of src may not import: what sits above it. */
function layerRules() {
  const above = (folders) =>
    folders.map((folder) => ({ group: [`**/${folder}/*`, `**/${folder}`], message: `${folder} sits above` }));
  const forbid = (files, folders) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: above(folders) }] },
  });
  return [
    ...FEATURES.map((feature) =>
      forbid(
        [`src/${feature}/**`],
        ['app', 'infra', 'cli', ...FEATURES.filter((f) => f !== feature && !FEATURE_DEPENDENCIES[feature].includes(f))],
      ),
    ),
    forbid(
      SHARED.map((folder) => `src/${folder}/**`),
      [...FEATURES, 'app', 'infra', 'cli'],
    ),
    forbid(['src/infra/**'], ['app', 'cli']),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'dist-*/',
      'node_modules/',
      'coverage/',
      'data/',
      'reports/',
      '.stryker-tmp/',
      'jest.config.js',
      // Generated from the OpenAPI document (npm run client:generate).
      'clients/typescript/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-console': ['error', { allow: ['warn', 'error'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Code, comments and strings wrap at 120 (prettier formats the code, .prettierrc.json); a
      // template literal (an SQL statement, a text with values in it) or a URL may run on.
      'max-len': ['error', { code: 120, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  // The layers (docs/architecture.md "The map"): imports run downwards only. The shared runtime knows
  // no feature; no feature knows the adapters or the composition root.
  ...layerRules(),
  { files: ['src/cli/**', 'bench/**', 'test/**'], rules: { 'no-console': 'off' } },
  // A preload given to a service process with `node -r` (bench/unchained-log.cjs): plain CommonJS.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The consoles' page scripts (audit-console/, console/): classic browser scripts, no build step.
  {
    files: ['audit-console/**/*.js', 'console/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'sessionStorage',
          'URL',
          'URLSearchParams',
          'Blob',
          'FormData',
          'setTimeout',
          'clearTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  // Tests read HTTP bodies as a client does: untyped JSON, checked by assertions.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // A test's name and its sample texts are strings that run on.
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
    },
  },
);
