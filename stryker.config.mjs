// Mutation testing of the pure domain (src/domain and each feature's decider, events and rules):
// `npm run test:mutation`. See docs/testing.md.
//
// Only the unit tests that cover the domain run against each mutant (test/domain and the upload
// policy's unit test), through jest with the repository's own transform, without the global setup
// that looks for Redis, MongoDB and Docker: the domain needs none of them.
//
// Incremental: the result of every mutant is kept in reports/stryker-incremental.json (not
// committed: 3 MB, rewritten by every run). A re-run in the same working tree tests again only the
// mutants whose source or covering tests changed since; `npm run test:mutation -- --force` runs
// everything again.
import fs from 'node:fs';
import { URL } from 'node:url';
import baseJestConfig from './jest.config.js';

const mutationConfig = JSON.parse(fs.readFileSync(new URL('./tsconfig.mutation.json', import.meta.url), 'utf8'));
const domainFiles = mutationConfig.include.filter((p) => p.startsWith('src/'));

const { globalSetup: _globalSetup, ...jestConfig } = baseJestConfig;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    enableFindRelatedTests: false,
    config: {
      ...jestConfig,
      testMatch: ['<rootDir>/test/domain/**/*.unit.test.ts', '<rootDir>/test/files/upload-policy*.unit.test.ts'],
      // One order per run, so that a mutant's result depends on the code only; the everyday runs
      // shuffle (jest.config.js) and prove the order does not matter.
      randomize: false,
      showSeed: false,
    },
  },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  // The pure domain: the shared runtime in src/domain and, in each feature folder, its decider,
  // events and rules, as tsconfig.mutation.json lists them for the type checker.
  mutate: domainFiles,
  coverageAnalysis: 'perTest',
  // The machine is shared: two workers at most (run under `nice -n 10`, as package.json does).
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  ignorePatterns: ['/dist', '/data', '/coverage', '/reports', '/bench', '/clients'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: 85 },
  timeoutMS: 10000,
};
