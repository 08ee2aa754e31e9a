import { EventEmitter } from 'node:events';
import pino from 'pino';
import { installProcessGuards } from '../../src/app/process-guards';

function guarded() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const proc = new EventEmitter();
  const exits: number[] = [];
  installProcessGuards(logger, proc as unknown as NodeJS.Process, (code) => exits.push(code));
  return { proc, lines, exits };
}

describe('process guards', () => {
  it.each(['unhandledRejection', 'uncaughtException'])(
    'given an %s, then it is logged as fatal and the process exits 1',
    (event) => {
      const { proc, lines, exits } = guarded();
      proc.emit(event, new Error('subscription died'));
      expect(exits).toEqual([1]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 60, kind: event, err: { type: 'Error' } });
    },
  );
});
