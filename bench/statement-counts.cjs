/**
 * Preloaded into a service process (`BENCH_SERVICE_FLAGS="-r ./bench/statement-counts.cjs"` for
 * bench/run.ts, or AB_FLAGS_A / AB_FLAGS_B for bench/ab-pairs.ts): counts every statement the
 * service sends to PostgreSQL (node-postgres's Client#query, by its text), and as the process
 * exits prints to stderr those of its busiest 10 seconds, most frequent first. This is how the
 * statements a save costs were counted (docs/benchmarks.md "On PostgreSQL"): divide by the saves
 * of the same 10 seconds. Benchmarks only.
 */
const path = require('node:path');
const { setInterval } = require('node:timers');
const { isMainThread } = require('node:worker_threads');

const WINDOW_SECONDS = 10;

if (isMainThread) {
  // node-postgres as the build the process runs resolves it.
  const pg = require(require.resolve('pg', { paths: [path.dirname(process.argv[1])] }));
  const counts = new Map();
  const marks = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config && config.text;
    const key = String(text ?? '?').replace(/\s+/g, ' ').slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return query.call(this, config, ...rest);
  };
  const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
  setInterval(() => marks.push({ total: total(), counts: new Map(counts) }), 1000).unref();
  process.on('exit', () => {
    let best;
    for (let i = WINDOW_SECONDS; i < marks.length; i++) {
      const sent = marks[i].total - marks[i - WINDOW_SECONDS].total;
      if (!best || sent > best.sent) best = { sent, from: marks[i - WINDOW_SECONDS], to: marks[i] };
    }
    if (!best) return;
    const lines = [...best.to.counts]
      .map(([text, n]) => [text, n - (best.from.counts.get(text) ?? 0)])
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([text, n]) => `${String(n).padStart(7)}  ${text}`);
    process.stderr.write(
      `statements sent in the service's busiest ${WINDOW_SECONDS} s: ${best.sent}\n${lines.join('\n')}\n`,
    );
  });
}
