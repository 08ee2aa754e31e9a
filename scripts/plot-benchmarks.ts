/**
 * Draws docs/benchmarks/*.svg from the figures `npm run bench` records in
 * docs/benchmarks/latest.json (the newest run of each scale): `npm run bench:plot [file.json]`.
 * Hand-made SVG, no plotting dependency: horizontal bars, one group per read scenario, one bar per
 * scale, so that 20k and 200k of the same traffic sit side by side.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One scenario as `npm run bench` measured it; the ceiling fields only for read scenarios. */
export type BenchScenario = {
  scenario: string;
  rps: number;
  /** The bare Express ceiling, measured in the slices between this scenario's. */
  ceilingRps?: number;
  /** rps / ceilingRps. */
  share?: number;
  p50: number;
  p99: number;
  ceilingP99?: number;
  errors: number;
};

/** One run of `npm run bench` at one scale. */
export type BenchRun = {
  scale: string;
  /** The day the figures were measured (YYYY-MM-DD). */
  measured: string;
  machine: string;
  command: string;
  scenarios: BenchScenario[];
  measures: { measure: string; value: string }[];
};

/** docs/benchmarks/latest.json: the newest run of each scale, by scale. */
export type BenchFile = { runs: Record<string, BenchRun> };

export const LATEST = path.join(__dirname, '..', 'docs', 'benchmarks', 'latest.json');

/** The file with `run` in place of the previous run of its scale; the other scales are kept. */
export function withRun(file: BenchFile | undefined, run: BenchRun): BenchFile {
  return { runs: { ...(file?.runs ?? {}), [run.scale]: run } };
}

/**
 * What a scenario is across scales: its name without what the scale sets (the large view's size,
 * how deep the deep page is) or what the run happened to reach (the saves a second landed).
 */
export function scenarioKey(scenario: string): string {
  return scenario
    .replace(/\b\d{1,3}(,\d{3})+-resource view/g, 'large view')
    .replace(/skip [\d,]+ of the /g, 'a deep page of the ')
    .replace(/\b\d+ saves\/s/g, '30 saves/s');
}

const SERIES_COLOURS = ['#3465a4', '#f57900', '#4e9a06', '#75507b'];
const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type Bar = { series: string; value: number; text: string; tooltip: string };
type Chart = { title: string; axis: string; rows: { label: string; bars: Bar[] }[]; marker?: number };

/** A horizontal grouped bar chart: each row's label above its bars, one bar per series. */
function barChart(chart: Chart, series: readonly string[]): string {
  const width = 960;
  const left = 16;
  const plot = 780;
  const barHeight = 12;
  const rowHeight = (n: number) => 18 + n * (barHeight + 2) + 6;
  const max = Math.max(chart.marker ?? 0, ...chart.rows.flatMap((r) => r.bars.map((b) => b.value)), 1);
  const scale = (v: number) => (plot * v) / max;
  const parts: string[] = [];
  let y = 56;
  for (const row of chart.rows) {
    parts.push(`<text x="${left}" y="${y + 12}" font-size="12">${escape(row.label)}</text>`);
    row.bars.forEach((bar, i) => {
      const top = y + 18 + i * (barHeight + 2);
      const colour = SERIES_COLOURS[series.indexOf(bar.series) % SERIES_COLOURS.length] ?? '#555';
      parts.push(
        `<rect x="${left}" y="${top}" width="${scale(bar.value).toFixed(1)}" height="${barHeight}" fill="${colour}">` +
          `<title>${escape(bar.tooltip)}</title></rect>`,
        `<text x="${(left + scale(bar.value) + 4).toFixed(1)}" y="${top + barHeight - 2}" font-size="10">` +
          `${escape(`${bar.series}: ${bar.text}`)}</text>`,
      );
    });
    y += rowHeight(row.bars.length);
  }
  const height = y + 24;
  const marker =
    chart.marker === undefined
      ? ''
      : `<line x1="${(left + scale(chart.marker)).toFixed(1)}" y1="48" x2="${(left + scale(chart.marker)).toFixed(1)}" ` +
        `y2="${y}" stroke="#cc0000" stroke-dasharray="4 3"/>`;
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${left + i * 130}" y="30" width="10" height="10" fill="${SERIES_COLOURS[i % SERIES_COLOURS.length]}"/>` +
        `<text x="${left + 14 + i * 130}" y="39" font-size="11">${escape(s)}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escape(chart.title)}</text>`,
    legend,
    ...parts,
    marker,
    `<text x="${left}" y="${height - 8}" font-size="11" fill="#555">${escape(chart.axis)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** The read scenarios of every run, grouped by scenarioKey, in the order the runs list them. */
function readRows(file: BenchFile): { key: string; byScale: Map<string, BenchScenario> }[] {
  const rows = new Map<string, Map<string, BenchScenario>>();
  for (const [scale, run] of Object.entries(file.runs))
    for (const s of run.scenarios) {
      if (s.ceilingRps === undefined) continue;
      const key = scenarioKey(s.scenario);
      if (!rows.has(key)) rows.set(key, new Map());
      rows.get(key)?.set(scale, s);
    }
  return [...rows].map(([key, byScale]) => ({ key, byScale }));
}

const dates = (file: BenchFile) =>
  Object.values(file.runs)
    .map((r) => `${r.scale} measured ${r.measured}`)
    .join(', ');

/** Share of the bare Express ceiling per read scenario and scale; the dashed line is the ceiling. */
export function plotShares(file: BenchFile): string {
  const series = Object.keys(file.runs);
  const rows = readRows(file).map(({ key, byScale }) => ({
    label: key,
    bars: [...byScale].map(([scale, s]) => {
      const share = s.share ?? s.rps / (s.ceilingRps ?? s.rps);
      return {
        series: scale,
        value: 100 * share,
        text: `${Math.round(100 * share)}%`,
        tooltip: `${s.scenario} (${scale}): ${s.rps} req/s, ceiling ${s.ceilingRps} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms`,
      };
    }),
  }));
  return barChart(
    {
      title: 'Share of the bare Express ceiling, per read scenario',
      axis: `Per cent of the ceiling measured between the scenario's own slices (dashed: 100%); ${dates(file)}`,
      rows,
      marker: 100,
    },
    series,
  );
}

/** p99 latency per read scenario and scale, against the ceiling's p99 in the same slices. */
export function plotP99(file: BenchFile): string {
  const series = Object.keys(file.runs);
  const rows = readRows(file).map(({ key, byScale }) => ({
    label: key,
    bars: [...byScale].map(([scale, s]) => ({
      series: scale,
      value: s.p99,
      text: `${s.p99} ms (ceiling ${s.ceilingP99 ?? '?'} ms)`,
      tooltip: `${s.scenario} (${scale}): p50 ${s.p50} ms, p99 ${s.p99} ms, ceiling p99 ${s.ceilingP99 ?? '?'} ms`,
    })),
  }));
  return barChart({ title: 'p99 latency, per read scenario', axis: `Milliseconds; ${dates(file)}`, rows }, series);
}

/** Writes shares.svg and p99.svg beside the JSON file; returns their paths. */
export function plotBenchmarks(jsonFile = LATEST): string[] {
  const file = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as BenchFile;
  const dir = path.dirname(jsonFile);
  const written = [
    [path.join(dir, 'shares.svg'), plotShares(file)],
    [path.join(dir, 'p99.svg'), plotP99(file)],
  ] as const;
  for (const [out, svg] of written) fs.writeFileSync(out, svg);
  return written.map(([out]) => out);
}

if (require.main === module) {
  for (const out of plotBenchmarks(path.resolve(process.argv[2] ?? LATEST))) process.stderr.write(`wrote ${out}\n`);
}
