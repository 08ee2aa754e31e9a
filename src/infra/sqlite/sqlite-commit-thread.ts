import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AppendOutcome, StoredAppend } from '../stored-append';
import { fromWire, type CommitReply } from './sqlite-commit-wire';

/**
 * Where the embedded log's group commits run: a worker thread with its own connection
 * (sqlite-commit-worker.ts). With synchronous=FULL a commit waits for the disk's fsync, 2 to 40 ms
 * on the VM measured; on the event loop that wait stopped every request for its length (a CPU
 * profile under 30 saves/s showed the commit as 18% of the service's busy time). A batch's
 * promise settles only when its transaction has committed, so an append is answered only once it
 * is durable, as before. One batch at a time: appends that arrive meanwhile form the next batch.
 */
export class SqliteCommitThread {
  private worker: Worker | undefined;
  private waiting: { resolve: (reply: CommitReply) => void; reject: (error: unknown) => void } | undefined;
  private broken: Error | undefined;

  constructor(
    private readonly file: string,
    private readonly options: { readonly hashChain: boolean; readonly busyTimeoutMs: number },
  ) {}

  /** Commits `batch` as one transaction; rejects when the transaction itself failed (every append with it). */
  async commit(batch: readonly StoredAppend[]): Promise<AppendOutcome[]> {
    if (this.waiting) throw new Error('one group commit at a time');
    const worker = this.started();
    const reply = await new Promise<CommitReply>((resolve, reject) => {
      this.waiting = { resolve, reject };
      // Held while a commit is in flight: a process with nothing else to do still waits for it.
      worker.ref();
      worker.postMessage(batch);
    });
    if ('failed' in reply) throw fromWire(reply.failed);
    return reply.outcomes.map((o) => (o.ok ? o : { ok: false, error: fromWire(o.error) }));
  }

  /** After the last commit: the thread closes its connection and ends. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // Held until it has ended: closing is the last thing some processes wait for.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private started(): Worker {
    if (this.broken) throw this.broken;
    if (this.worker) return this.worker;
    const worker = spawnCommitWorker({ file: this.file, ...this.options });
    worker.unref();
    worker.on('message', (reply: CommitReply) => this.settle((w) => w.resolve(reply)));
    const fail = (error: Error) => {
      this.broken = error;
      this.worker = undefined;
      this.settle((w) => w.reject(error));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`the log's commit thread exited with ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(answer: (waiting: NonNullable<SqliteCommitThread['waiting']>) => void): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.worker?.unref();
    if (waiting) answer(waiting);
  }
}

/**
 * Built (dist/) the worker is its .js file; run from the sources (tests, tsx) it is the .ts file,
 * compiled as it loads by tsx, a development dependency.
 */
function spawnCommitWorker(workerData: { file: string; hashChain: boolean; busyTimeoutMs: number }): Worker {
  const compiled = __filename.endsWith('.js');
  const entry = path.join(__dirname, `sqlite-commit-worker.${compiled ? 'js' : 'ts'}`);
  if (compiled) return new Worker(entry, { workerData });
  const source = `require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`;
  return new Worker(source, { eval: true, workerData });
}
