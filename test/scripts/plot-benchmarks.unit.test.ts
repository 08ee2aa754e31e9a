import {
  plotP99,
  plotShares,
  scenarioKey,
  withRun,
  type BenchFile,
  type BenchRun,
} from '../../scripts/plot-benchmarks';

const run = (scale: string, view: string, deep: string, saves: number): BenchRun => ({
  scale,
  measured: '2026-11-27',
  machine: '2 cores',
  command: `BENCH_SCALE=${scale} npm run bench`,
  scenarios: [
    { scenario: 'bare Express no-op (POST, own process), alone', rps: 10000, p50: 4, p99: 10, errors: 0 },
    {
      scenario: `GetResourceList, ${view}-resource view, member`,
      rps: 11000,
      ceilingRps: 10000,
      share: 1.1,
      p50: 3,
      p99: 14,
      ceilingP99: 10,
      errors: 0,
    },
    {
      scenario: `GetResourceList, 550 callers × a random page, ${view}-resource view, ${saves} saves/s landing on the same view, memos <on>`,
      rps: 6500,
      ceilingRps: 10000,
      share: 0.65,
      p50: 6,
      p99: 21,
      ceilingP99: 12,
      errors: 0,
    },
    {
      scenario: `GetResourceList, member, skip ${deep} of the ${view}-resource view, memos off`,
      rps: 7000,
      ceilingRps: 10000,
      share: 0.7,
      p50: 5,
      p99: 20,
      ceilingP99: 11,
      errors: 0,
    },
  ],
  measures: [{ measure: 'restart to ready, after a clean stop', value: '331 ms' }],
});

const file: BenchFile = withRun(
  withRun(undefined, run('20k', '4,000', '3,980', 30)),
  run('200k', '40,000', '10,000', 29),
);
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const readScenarios = Object.values(file.runs).flatMap((r) => r.scenarios.filter((s) => s.ceilingRps !== undefined));

describe('plot-benchmarks', () => {
  it.each([
    ['shares', plotShares],
    ['p99', plotP99],
  ])('given two scales, then the %s chart names every read scenario of each, as measured', (_name, plot) => {
    const svg = plot(file);

    expect(readScenarios).toHaveLength(6);
    for (const s of readScenarios) expect(svg).toContain(escaped(s.scenario));
  });

  it('given the same traffic at two scales, then one row holds both bars, under a name without the scale', () => {
    const svg = plotShares(file);

    const labels = [...svg.matchAll(/font-size="12">([^<]*)</g)].map((m) => m[1]);
    expect(labels).toEqual([
      'GetResourceList, large view, member',
      'GetResourceList, 550 callers × a random page, large view, 30 saves/s landing on the same view, memos &lt;on&gt;',
      'GetResourceList, member, a deep page of the large view, memos off',
    ]);
    expect(svg).toContain('20k: 110%');
    expect(svg).toContain('200k: 65%');
  });

  it('given a scenario without a ceiling, then it is no bar', () => {
    expect(plotShares(file)).not.toContain('bare Express no-op (POST, own process), alone');
  });

  it('given a new run of one scale, then it replaces that scale only', () => {
    const next = withRun(file, { ...run('20k', '4,000', '3,980', 30), measured: '2026-12-01' });

    expect(next.runs['20k']?.measured).toBe('2026-12-01');
    expect(next.runs['200k']?.measured).toBe('2026-11-27');
  });

  it('given scale-set parts of a name, then the key leaves them out', () => {
    expect(scenarioKey('GetResourceList, member, skip 10,000 of the 40,000-resource view, 29 saves/s landing')).toBe(
      'GetResourceList, member, a deep page of the large view, 30 saves/s landing',
    );
  });
});
