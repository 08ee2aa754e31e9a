import fs from 'node:fs';
import path from 'node:path';
import { dropSchemasOf } from './postgres';

/**
 * Stops the service processes the run left running (test/support/service-process.ts lists them),
 * drops the schemas the run's servers used on PostgreSQL (test/support/backend.ts) and the
 * registry, and then fails the run if any service was left: a test that does not stop what it
 * started is a defect, named here by its file.
 */
export default async function globalTeardown(): Promise<void> {
  const left = stopLeftServices();
  const registry = process.env.TEST_POSTGRES_REGISTRY;
  const url = process.env.TEST_POSTGRES_URL;
  if (registry && url && fs.existsSync(registry)) {
    const schemas = [...new Set(fs.readFileSync(registry, 'utf8').split('\n').filter(Boolean))];
    for (const schema of schemas) await dropSchemasOf(url, schema);
    fs.rmSync(registry, { force: true });
  }
  if (left.length > 0) {
    throw new Error(`service processes were still running at the end of the run, started by: ${left.join(', ')}`);
  }
}

/** Kills the services still running; the test files that started them. */
function stopLeftServices(): string[] {
  const dir = process.env.TEST_SERVICE_PIDS;
  if (!dir || !fs.existsSync(dir)) return [];
  const left: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const pid = Number(name);
    const testFile = fs.readFileSync(path.join(dir, name), 'utf8');
    // Only a process that is still the service: its pid may have been given to another since.
    if (commandLineOf(pid).includes('src/main.ts')) {
      process.kill(pid, 'SIGKILL');
      console.warn(`a service process (pid ${pid}) was still running at the end of the run; started by ${testFile}`);
      left.push(testFile);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return left;
}

function commandLineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
