import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { configSchema } from '../../src/config/config';
import { Metrics } from '../../src/observability/metrics';
import { HEALTH_ROUTES } from '../../src/app/health-routes';
import { ROUTE_DOCS } from '../../src/app/route-groups';

const root = path.join(__dirname, '..', '..');
const deploy = path.join(root, 'deploy');
const SCHEMA_DIR = path.join(__dirname, 'schemas', 'v1.25.0-standalone-strict');
const read = (file: string) => fs.readFileSync(file, 'utf8');

/**
 * Every series name the service's registry exposes, built the way the service builds it (no
 * server): the `# TYPE` lines of its exposition, since a labelled metric with no sample yet has
 * no sample line. A histogram is scraped as its `_bucket`, `_sum` and `_count` series; a counter
 * under the name it was declared with (prom-client's text format adds no `_total`).
 */
async function exportedSeries(): Promise<Set<string>> {
  const text = await new Metrics().registry.metrics();
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = match;
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** Series Prometheus itself records for every target; no process exports them. */
const PROMETHEUS_SERIES = new Set(['up']);

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);

/**
 * The metric names a PromQL expression reads. Taken out first, as they hold identifiers that are
 * no metric: string literals, label matchers (`{route="…"}`), ranges (`[5m]`), Grafana's variables
 * (`$__rate_interval`) and the label lists of `by`, `without`, `on`, `ignoring`, `group_left` and
 * `group_right`. Of the identifiers left, one followed by `(` is a function or an aggregation, a
 * keyword is a keyword, and the rest are metric names. An identifier glued to a digit (`5m`,
 * `1e3`) is part of a number.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    // Grafana's `label_values(metric, label)`: its second argument is a label.
    .replace(/\blabel_values\s*\(([^,()]*),\s*\w+\s*\)/g, ' $1 ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w.:])[A-Za-z_:][\w:]*/g)) {
    const name = match[0];
    if (/^\s*\(/.test(stripped.slice((match.index ?? 0) + name.length))) continue;
    if (PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    if (/^(?:group_left|group_right|by|without|on|ignoring)$/i.test(name)) continue;
    names.push(name);
  }
  return [...new Set(names)];
}

/** The values a PromQL expression compares the `route` label with: `=` (exact) and `=~` (regex). */
function routeMatchers(expr: string): { op: string; value: string }[] {
  return [...expr.matchAll(/\broute\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => ({
    op: m[1] ?? '',
    value: m[2] ?? '',
  }));
}

/** Route templates as the request log labels them: Express paths, `{id}` as `:id`. */
const declaredRoutes = ROUTE_DOCS.map((doc) => doc.path.replace(/\{(\w+)\}/g, ':$1'));

type Panel = { type: string; title: string; targets?: { expr: string }[]; panels?: Panel[] };
type Dashboard = {
  panels: Panel[];
  templating: { list: { name: string; type: string; definition?: string; query?: unknown }[] };
};
const dashboard = JSON.parse(read(path.join(deploy, 'grafana', 'resources-service.json'))) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => ({ where: `variable $${v.name}`, expr: v.definition ?? '' })),
];

type Rule = { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string> };
type RuleGroup = { name: string; rules: (Rule & { annotations?: Record<string, string> })[] };
const alertsText = read(path.join(deploy, 'prometheus', 'alerts.yml'));
const alerts = parse(alertsText) as { groups: RuleGroup[] };
const ruleExprs = alerts.groups.flatMap((g) =>
  g.rules.map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: String(r.expr) })),
);

/** Metric names an expression reads that the service does not export, with where they are. */
function unknownNames(exprs: { where: string; expr: string }[], exported: Set<string>): string[] {
  return exprs.flatMap(({ where, expr }) =>
    metricNames(expr)
      .filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name))
      .map((name) => `${where}: ${name}`),
  );
}

describe('PromQL metric names', () => {
  it('given expressions, then the metric names are read and functions, labels, keywords and ranges are not', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{job=~"$job", route!~"/health/.*"}[$__rate_interval])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(
      metricNames('sum(rate(a_total[5m] offset 1h)) / on(instance) group_left(pod) b > bool 1e3 and up == 0'),
    ).toEqual(['a_total', 'b', 'up']);
    expect(metricNames('max by (projection) (read_model_lag_events) > 100')).toEqual(['read_model_lag_events']);
    expect(metricNames('label_values(read_model_leading, job)')).toEqual(['read_model_leading']);
  });

  it('given a name the service does not export, then it is reported with where it is', async () => {
    const exported = await exportedSeries();

    expect(unknownNames([{ where: 'panel "x"', expr: 'rate(parked_events_total[5m])' }], exported)).toEqual([
      'panel "x": parked_events_total',
    ]);
  });

  it('given the service registry, then the series names include the histogram, counter and gauge forms', async () => {
    const exported = await exportedSeries();

    for (const name of [
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_count',
      'api_key_verifications_total',
      'read_model_lag_events',
    ])
      expect(exported.has(name)).toBe(true);
    expect(exported.has('http_request_duration_seconds')).toBe(false);
  });
});

describe('the Grafana dashboard', () => {
  it('given its queries, then every metric they read is one the service exports', async () => {
    const unknown = unknownNames(dashboardExprs, await exportedSeries());
    if (unknown.length > 0) console.error(`metrics the service does not export:\n  ${unknown.join('\n  ')}`);

    expect(dashboardExprs.length).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
  });

  it('given its panels, then requests, latency, 5xx, lag, stopped and leading projections, API keys and 429s are shown', () => {
    const read = new Set(dashboardExprs.flatMap(({ expr }) => metricNames(expr)));
    const statuses = dashboardExprs.map(({ expr }) => expr).join('\n');

    for (const name of [
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
      'read_model_lag_events',
      'read_model_projection_failed',
      'read_model_leading',
      'api_key_verifications_total',
    ])
      expect(read.has(name)).toBe(true);
    expect(statuses).toContain('status=~"5.."');
    expect(statuses).toContain('status="429"');
    expect(statuses).toContain('histogram_quantile(0.99');
    expect(statuses).toContain('histogram_quantile(0.5');
  });

  it('given its panels, then one shows the parked events and one the rebuild jobs by outcome and running', () => {
    // By panel: a metric read only in a variable's query shows nothing on the dashboard.
    const panelsReading = (name: string) =>
      panels.filter((p) => (p.targets ?? []).some(({ expr }) => metricNames(expr).includes(name))).map((p) => p.title);
    const rebuilds = panels.filter((p) =>
      (p.targets ?? []).some(({ expr }) => metricNames(expr).includes('read_model_rebuilds_total')),
    );

    expect(panelsReading('projection_parked_events')).not.toEqual([]);
    expect(rebuilds).not.toEqual([]);
    expect(rebuilds.flatMap((p) => (p.targets ?? []).map(({ expr }) => expr)).join('\n')).toContain('by (outcome)');
    expect(panelsReading('read_model_rebuild_running')).not.toEqual([]);
  });

  it('given the routes its queries name, then each is a route the service declares', () => {
    const bad = dashboardExprs
      .flatMap(({ expr }) => routeMatchers(expr))
      .filter(({ op, value }) =>
        op === '=' || op === '!='
          ? !declaredRoutes.includes(value)
          : !declaredRoutes.some((r) => new RegExp(`^(?:${value})$`).test(r)),
      );

    expect(bad).toEqual([]);
  });

  it('given its panels, then each has a title, its data source is the dashboard variable, and ids are unique', () => {
    const ids = dashboard.panels.map((p) => (p as unknown as { id: number }).id);
    const sources = panels
      .filter((p) => p.type !== 'row')
      .map((p) => (p as unknown as { datasource: { uid: string } }).datasource.uid);

    expect(panels.every((p) => p.title.trim() !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(sources)).toEqual(new Set(['${datasource}']));
    expect(dashboard.templating.list.map((v) => v.name)).toContain('datasource');
  });
});

describe('the Prometheus alert rules', () => {
  it('given the file, then it is YAML with the rule-group shape: named groups of rules with an alert, an expr and a duration', () => {
    expect(Array.isArray(alerts.groups)).toBe(true);
    expect(alerts.groups.length).toBeGreaterThan(0);
    for (const group of alerts.groups) {
      expect(typeof group.name).toBe('string');
      expect(Array.isArray(group.rules)).toBe(true);
      for (const rule of group.rules) {
        expect(Object.keys(rule).every((k) => ['alert', 'expr', 'for', 'labels', 'annotations'].includes(k))).toBe(
          true,
        );
        expect(typeof rule.alert).toBe('string');
        expect(typeof rule.expr).toBe('string');
        expect(rule.for).toMatch(/^\d+[smhdwy]$/);
        expect(['critical', 'warning']).toContain(rule.labels?.severity);
        expect(rule.annotations?.summary?.length).toBeGreaterThan(10);
        expect(rule.annotations?.description?.length).toBeGreaterThan(100);
      }
    }
    const names = alerts.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(new Set(names).size).toBe(names.length);
  });

  it('given the rules asked for, then projection stopped, lagging, parked events, a failed rebuild, 5xx and readiness flapping are there', () => {
    const byName = new Map(alerts.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr] as const)));

    expect(byName.get('ResourcesProjectionStopped')).toContain('read_model_projection_failed');
    expect(byName.get('ResourcesProjectionLagging')).toContain('read_model_lag_events');
    expect(byName.get('ResourcesHighErrorRate')).toContain('status=~"5.."');
    expect(byName.get('ResourcesReadinessFlapping')).toContain('route="/health/ready"');
    expect(byName.get('ResourcesProjectionParkedEvents')).toContain('projection_parked_events');
    expect(byName.get('ResourcesRebuildFailed')).toContain('read_model_rebuilds_total{outcome="failed"}');
  });

  it('given their expressions, then every metric they read is one the service exports (or `up`)', async () => {
    const unknown = unknownNames(ruleExprs, await exportedSeries());
    if (unknown.length > 0) console.error(`metrics the service does not export:\n  ${unknown.join('\n  ')}`);

    expect(unknown).toEqual([]);
  });

  it('given the routes their expressions name, then each is a route the service declares', () => {
    const bad = ruleExprs
      .flatMap(({ expr }) => routeMatchers(expr))
      .filter(({ op, value }) =>
        op === '=' || op === '!='
          ? !declaredRoutes.includes(value)
          : !declaredRoutes.some((r) => new RegExp(`^(?:${value})$`).test(r)),
      );

    expect(bad).toEqual([]);
  });

  it('given the jobs their expressions name, then each is the scrape job of deploy/prometheus/scrape-config.yml', () => {
    const scrape = parse(read(path.join(deploy, 'prometheus', 'scrape-config.yml'))) as {
      scrape_configs: { job_name: string }[];
    };
    const jobs = ruleExprs.flatMap(({ expr }) => [...expr.matchAll(/\bjob\s*=\s*"([^"]*)"/g)].map((m) => m[1]));

    expect(jobs.length).toBeGreaterThan(0);
    expect(new Set(jobs)).toEqual(new Set(scrape.scrape_configs.map((j) => j.job_name)));
  });

  it('given the docs sections their annotations cite, then each heading exists', () => {
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .trim()
        .replace(/\s/g, '-');
    const cited = [...alertsText.matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)].map((m) => ({
      file: m[1] ?? '',
      anchor: m[2] ?? '',
    }));
    const missing = cited.filter(({ file, anchor }) => {
      const headings = read(path.join(root, 'docs', file))
        .split('\n')
        .filter((l) => l.startsWith('#'))
        .map((l) => slug(l.replace(/^#+\s*/, '')));
      return !headings.includes(anchor);
    });

    expect(cited.length).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});

type Probe = { httpGet: { path: string; port: string | number } };
type Container = {
  name: string;
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  startupProbe: Probe;
  readinessProbe: Probe;
  livenessProbe: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
};
type Manifest = {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> } & Record<string, string>;
    ports?: { targetPort: string | number }[];
    template?: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { terminationGracePeriodSeconds: number; containers: Container[] };
    };
  };
  data?: Record<string, string>;
};

const manifestFiles = fs
  .readdirSync(path.join(deploy, 'kubernetes'))
  .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'));
const manifests = manifestFiles.flatMap((file) =>
  parseAllDocuments(read(path.join(deploy, 'kubernetes', file))).map((doc) => ({
    file,
    object: doc.toJS() as Manifest,
  })),
);
const ofKind = (kind: string) => manifests.filter((m) => m.object.kind === kind).map((m) => m.object);
const deployments = ofKind('Deployment');
const configMap = ofKind('ConfigMap')[0];
const deploymentWithRole = (role: string) =>
  deployments.find((d) =>
    d.spec?.template?.spec.containers[0]?.env?.some((e) => e.name === 'ROLE' && e.value === role),
  );

/** The vendored schema of each kind, compiled once; `$schema` names a draft ajv does not load. */
function schemaValidators(): Record<string, ValidateFunction> {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const compile = (file: string) => {
    const schema = JSON.parse(read(path.join(SCHEMA_DIR, file))) as Record<string, unknown>;
    delete schema.$schema;
    return ajv.compile(schema);
  };
  return {
    Deployment: compile('deployment-apps-v1.json'),
    Service: compile('service-v1.json'),
    ConfigMap: compile('configmap-v1.json'),
  };
}

describe('the Kubernetes manifests', () => {
  const validators = schemaValidators();

  it('given every manifest, then it validates against the strict Kubernetes schema of its kind', () => {
    const errors = manifests.flatMap(({ file, object }) => {
      const validate = validators[object.kind];
      if (!validate) return [`${file}: no vendored schema for kind ${object.kind}`];
      // Read before validating: ajv's type guard leaves `object` as `never` where it fails.
      const name = object.metadata.name;
      return validate(object)
        ? []
        : (validate.errors ?? []).map(
            (e) => `${file} ${name}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
          );
    });

    expect(manifests.map((m) => m.object.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Deployment', 'Service']);
    expect(errors).toEqual([]);
  });

  it('given a misspelt field, then the strict schema refuses it', () => {
    const api = structuredClone(deploymentWithRole('api')) as unknown as {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const container = api.spec.template.spec.containers[0] ?? {};
    container.readinessprobe = container.readinessProbe;
    delete container.readinessProbe;

    expect(validators.Deployment?.(api)).toBe(false);
  });

  it('given the two Deployments, then the API runs 2 replicas with ROLE=api and the projector 1 with ROLE=projector', () => {
    expect(deploymentWithRole('api')?.spec?.replicas).toBe(2);
    expect(deploymentWithRole('projector')?.spec?.replicas).toBe(1);
  });

  it('given each container, then its probes ask the health routes the service serves, on its port', () => {
    const served = HEALTH_ROUTES.filter((r) => r.doc.method === 'get').map((r) => r.doc.path);
    const port = Number(configMap?.data?.PORT ?? configSchema.shape.PORT.parse(undefined));

    for (const deployment of deployments) {
      const container = deployment.spec?.template?.spec.containers[0] as Container;
      const named = new Map(container.ports.map((p) => [p.name, p.containerPort]));

      expect(container.startupProbe.httpGet.path).toBe('/health/started');
      expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
      expect(container.livenessProbe.httpGet.path).toBe('/health/live');
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
        expect(served).toContain(probe.httpGet.path);
        expect(named.get(String(probe.httpGet.port))).toBe(port);
      }
    }
  });

  it('given the environment the containers get, then every name is a variable the service reads', () => {
    const known = new Set(Object.keys(configSchema.shape));
    const names = [
      ...Object.keys(configMap?.data ?? {}),
      ...deployments.flatMap((d) =>
        (d.spec?.template?.spec.containers ?? []).flatMap((c) => [
          ...(c.env ?? []).map((e) => e.name),
          ...(c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.key] : [])),
        ]),
      ),
    ];
    const unknown = names.filter((n) => !known.has(n));

    expect(names).toEqual(
      expect.arrayContaining(['ROLE', 'DIRECTORY_SYNC_TOKEN', 'METRICS_TOKEN', 'SHUTDOWN_GRACE_SECONDS']),
    );
    expect(unknown).toEqual([]);
  });

  it('given the ConfigMap, then its values are valid for the service and both Deployments read it', () => {
    const parsed = configSchema.safeParse(configMap?.data ?? {});

    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`)).toEqual([]);
    for (const deployment of deployments)
      expect(deployment.spec?.template?.spec.containers[0]?.envFrom?.[0]?.configMapRef?.name).toBe(
        configMap?.metadata.name,
      );
  });

  it('given the stores, then every Deployment runs on PostgreSQL alone (never beside EVENTSTORE_URL or MONGODB_URL, which the service refuses), from the Secret', () => {
    for (const deployment of deployments) {
      const env = deployment.spec?.template?.spec.containers[0]?.env ?? [];
      const names = env.map((e) => e.name);
      expect(names).toContain('POSTGRES_URL');
      expect(names).not.toContain('EVENTSTORE_URL');
      expect(names).not.toContain('MONGODB_URL');
      expect(JSON.stringify(env.find((e) => e.name === 'POSTGRES_URL'))).toContain('secretKeyRef');
    }
    expect(Object.keys(configMap?.data ?? {})).not.toContain('POSTGRES_URL');
  });

  it('given SIGTERM, then each pod is given longer than its preStop pause plus SHUTDOWN_GRACE_SECONDS', () => {
    const grace = Number(
      configMap?.data?.SHUTDOWN_GRACE_SECONDS ?? configSchema.shape.SHUTDOWN_GRACE_SECONDS.parse(undefined),
    );

    for (const deployment of deployments) {
      const pod = deployment.spec?.template?.spec;
      const command = pod?.containers[0]?.lifecycle?.preStop?.exec?.command ?? [];
      const pause = command[0] === 'sleep' ? Number(command[1]) : 0;

      expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(pause + grace);
    }
  });

  it('given each container, then it has CPU and memory requests and limits, the memory limit above the 320 MB heap cap', () => {
    const mebibytes = (q: string) => (q.endsWith('Gi') ? parseFloat(q) * 1024 : parseFloat(q));

    for (const deployment of deployments) {
      const { requests, limits } = deployment.spec?.template?.spec.containers[0]?.resources ?? {
        requests: {},
        limits: {},
      };
      expect(Object.keys(requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(limits).sort()).toEqual(['cpu', 'memory']);
      expect(mebibytes(limits.memory ?? '0')).toBeGreaterThan(320);
      expect(mebibytes(requests.memory ?? '0')).toBeLessThanOrEqual(mebibytes(limits.memory ?? '0'));
    }
  });

  it('given the Service, then it selects the API pods only, on their named port', () => {
    const service = ofKind('Service')[0];
    const selects = (d: Manifest | undefined) =>
      Object.entries(service?.spec?.selector ?? {}).every(([k, v]) => d?.spec?.template?.metadata.labels[k] === v);
    const apiPorts = deploymentWithRole('api')?.spec?.template?.spec.containers[0]?.ports.map((p) => p.name);

    expect(selects(deploymentWithRole('api'))).toBe(true);
    expect(selects(deploymentWithRole('projector'))).toBe(false);
    expect(apiPorts).toContain(service?.spec?.ports?.[0]?.targetPort);
  });

  it('given the scrape annotations and the scrape job, then they name the metrics route and the job sends a bearer token', () => {
    const scrape = parse(read(path.join(deploy, 'prometheus', 'scrape-config.yml'))) as {
      scrape_configs: { job_name: string; metrics_path: string; authorization?: { type: string } }[];
    };
    const job = scrape.scrape_configs.find((j) => j.job_name === 'resources-service');

    expect(declaredRoutes).toContain(job?.metrics_path);
    expect(job?.authorization?.type).toBe('Bearer');
    for (const deployment of deployments) {
      const annotations = deployment.spec?.template?.metadata.annotations ?? {};
      expect(annotations['prometheus.io/path']).toBe(job?.metrics_path);
      expect(annotations['prometheus.io/port']).toBe(configMap?.data?.PORT);
    }
  });
});
