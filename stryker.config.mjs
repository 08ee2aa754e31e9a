// Mutation testing of the pure domain (src/domain and each feature's decider, events and rules):
// `npm run test:mutation`. See docs/testing.md.
//
// Only the unit tests that cover the domain run against each mutant (the unit tests of test/domain
// and of the feature folders, the upload policy's among them), through jest with the repository's
// own transform, without the global setup that looks for Redis, MongoDB and Docker: the domain
// needs none of them.
//
// Incremental: the result of every mutant is kept in reports/stryker-incremental.json (not
// committed: 3 MB, rewritten by every run). A re-run in the same working tree tests again only the
// mutants whose source or covering tests changed since; `npm run test:mutation -- --force` runs
// everything again.
//
// In two halves, each with its own incremental file and reports (docs/testing.md "Mutation
// testing"): MUTATION_GROUP=upload runs the upload policy against its own tests only (no domain
// test imports it, so the result is the same, without running 800 domain tests for each of its
// table's static mutants); MUTATION_GROUP=domain runs everything else against every domain test.
import fs from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import baseJestConfig from './jest.config.js';

const mutationConfig = JSON.parse(fs.readFileSync(new URL('./tsconfig.mutation.json', import.meta.url), 'utf8'));
const domainFiles = mutationConfig.include.filter((p) => p.startsWith('src/'));

const UPLOAD_POLICY = 'src/files/upload-policy.ts';
const UPLOAD_TESTS = '<rootDir>/test/files/upload-policy*.unit.test.ts';
const group = process.env.MUTATION_GROUP ?? '';
if (!['', 'upload', 'domain'].includes(group)) throw new Error(`MUTATION_GROUP must be upload or domain, not ${group}`);
const mutate =
  group === 'upload'
    ? [UPLOAD_POLICY]
    : group === 'domain'
      ? domainFiles.filter((p) => p !== UPLOAD_POLICY)
      : domainFiles;
const FEATURES = 'domain,resources,privacy,audit,api-keys,directory,files,applications';
const DOMAIN_TESTS = `<rootDir>/test/{${FEATURES}}/**/*.unit.test.ts`;
const testMatch = group === 'upload' ? [UPLOAD_TESTS] : [DOMAIN_TESTS];
const suffix = group === '' ? '' : `-${group}`;

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
      testMatch,
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
  mutate,
  coverageAnalysis: 'perTest',
  // The machine is shared: two workers at most (run under `nice -n 10`, as package.json does).
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/stryker-incremental${suffix}.json`,
  ignorePatterns: ['/dist', '/data', '/coverage', '/reports', '/bench', '/clients'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation${suffix}/index.html` },
  jsonReporter: { fileName: `reports/mutation${suffix}/mutation.json` },
  thresholds: { high: 90, low: 85, break: 85 },
  timeoutMS: 10000,
};
