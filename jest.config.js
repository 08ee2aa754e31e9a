// One jest config for every test level; the level is chosen by file name
// (*.unit.test.ts, *.int.test.ts, *.e2e.test.ts) through --testPathPatterns.
//
// jest runs tests in its own CommonJS module system, which cannot load ESM-only
// packages. jose (JWT) is ESM-only, so it — and only it — is transformed to CJS
// by swc like our own TypeScript. Add a package here only when it is ESM-only.
const esmOnly = ['jose'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  setupFiles: ['<rootDir>/test/support/jest.setup.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // Every run shuffles the tests of each file (and prints its seed): a test must arrange what it
  // reads, never rely on one declared above it. A failing order comes back with --seed=<seed>.
  randomize: true,
  showSeed: true,
};
