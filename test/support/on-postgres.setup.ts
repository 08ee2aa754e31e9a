// The `postgres` jest project: every test server of the file runs on PostgreSQL (backendEnv).
process.env.TEST_BACKEND = 'postgres';
