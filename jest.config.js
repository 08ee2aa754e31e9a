// One jest config for every test level; the level is chosen by file name through --testPathPatterns:
// *.unit.test.ts (no I/O), *.int.test.ts (a port against real stores), *.http.test.ts (the service
// over HTTP, in process), *.e2e.test.ts (the service and the CLI as processes). Tests live in the
// folder named as their feature's in src (test/resources, test/privacy, ...).
//
// jest runs tests in its own CommonJS module system, which cannot load ESM-only
// packages. jose (JWT) is ESM-only, so it — and only it — is transformed to CJS
// by swc like our own TypeScript. Add a package here only when it is ESM-only.
const esmOnly = ['jose'];

/** What every project shares. */
const project = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  setupFiles: ['<rootDir>/test/support/jest.setup.ts'],
  // The packaged client imports its own files as NodeNext wants them, by their emitted names.
  moduleNameMapper: { '^\\./(client-[a-z]+)\\.js$': '<rootDir>/clients/typescript/$1.ts' },
};

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  // Two files at once. jest's default on two cores is one (cores - 1), and most of a file's time
  // is spent waiting on a database, a child process or a timer, not on the CPU: one at a time, the
  // suites took 26 minutes end to end.
  maxWorkers: 2,
  // A worker keeps on its heap what every file it ran left there (about 10 MB a file), and with
  // 2 GB held its collections slowed the last files threefold: past this, it is replaced. The whole
  // run took 696 s with it against 983 s without, the same files in the same order.
  workerIdleMemoryLimit: '512MB',
  // Every run shuffles the tests of each file (and prints its seed): a test must arrange what it
  // reads, never rely on one declared above it. A failing order comes back with --seed=<seed>.
  randomize: true,
  showSeed: true,
  projects: [
    { ...project, displayName: 'embedded', testMatch: ['**/*.test.ts'] },
    // The service's HTTP suites once more, with every store in PostgreSQL (test/support/test-server.ts
    // reads TEST_BACKEND): the same tests, not copies. Suites that start their own backend, or read
    // the embedded store's files, name why they do not run here (test/support/on-postgres.setup.ts).
    {
      ...project,
      displayName: 'postgres',
      testMatch: ['<rootDir>/test/**/*.http.test.ts'],
      // Suites about the embedded store's own files: the golden logs are SQLite logs of earlier
      // versions; the log's identity is tested by moving and recreating its file.
      testPathIgnorePatterns: ['/node_modules/', 'audit-secrets\\.http', 'event-log-identity\\.http'],
      setupFiles: [...project.setupFiles, '<rootDir>/test/support/on-postgres.setup.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/on-postgres.after-env.ts'],
    },
  ],
};
