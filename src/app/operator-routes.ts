import { z } from 'zod';
import type { AppContext } from './app-context';
import { routeGroup } from '../api/route-declaration';
import { readModelDigestSchema, rebuildJobSchema, rebuildJobStartedSchema } from '../api/response-schemas';
import { notFound } from '../domain/errors';
import { READ_MODEL_NAMES } from './read-model-list';

const rebuildBody = z
  .strictObject({
    readModel: z
      .enum(READ_MODEL_NAMES)
      .optional()
      .meta({
        description:
          'One read model to rebuild alone, the others carried over as they are ' +
          '(embedded and PostgreSQL read models); every one when absent',
        example: 'resources',
      }),
  })
  .meta({ id: 'RebuildReadModelsRequest', example: { readModel: 'resources' } });

const rebuildJobParams = z.object({
  jobId: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: 'The job, as `POST /internal/read-models/rebuild` answered it', example: 'f0e1d2c3' }),
});

const jobPath = (jobId: string) => `/internal/read-models/rebuild/${encodeURIComponent(jobId)}`;

const describe = async (ctx: AppContext) => ({
  generation: ctx.readSide.current.number,
  checkpoint: ctx.readModels.checkpoint?.toString() ?? null,
  ...(await ctx.readModels.digest()),
});

/** Operator endpoints: metrics, and inspecting and rebuilding the read models (as jobs: rebuild-jobs.ts). */
export const OPERATOR_ROUTES = routeGroup<AppContext>({ tag: 'internal', access: 'internal' }, (operator) => [
  operator.get('/internal/read-models/digest', 'getReadModelDigest', {
    summary: 'Fingerprint of the live read models (compare with `resources-cli digest`)',
    answers: { 200: { description: 'Checkpoint, digest and document counts', json: readModelDigestSchema } },
    errors: [401],
    handle: (ctx) => () => describe(ctx),
  }),
  operator.post('/internal/read-models/rebuild', 'rebuildReadModels', {
    summary: 'Start a job projecting the event log again into a new generation of the read models',
    description:
      'Answers at once with the job, which runs in the background of this process; ' +
      '`GET /internal/read-models/rebuild/{jobId}` follows it. One rebuild runs at a time, whichever read ' +
      'models it rebuilds: every rebuild builds the next generation.',
    request: { body: rebuildBody, bodyOptional: true },
    answers: {
      202: {
        description: 'The job is started',
        json: rebuildJobStartedSchema,
        headers: { Location: 'The job: `/internal/read-models/rebuild/{jobId}`' },
      },
    },
    // 400: an unknown `readModel`, or one alone where the read models live in MongoDB.
    // 409: another rebuild (this process's, another's, the CLI's) holds the rebuild lock.
    errors: [400, 401, 409],
    handle:
      (ctx) =>
      async ({ body, res }) => {
        const job = await ctx.rebuildJobs.start(body.readModel ? [body.readModel] : undefined);
        res.status(202).setHeader('Location', jobPath(job.jobId));
        return { jobId: job.jobId };
      },
  }),
  operator.get('/internal/read-models/rebuild/{jobId}', 'getRebuildJob', {
    summary: 'A rebuild job of this process: its phase, progress and outcome',
    description:
      'Jobs are known to the process that runs them, from the time they are asked until a while after they end ' +
      '(the last 20 ended ones); another process, or this one once restarted, answers 404.',
    request: { params: rebuildJobParams },
    answers: { 200: { description: 'The job', json: rebuildJobSchema } },
    errors: [400, 401, 404],
    handle:
      (ctx) =>
      ({ params }) => {
        const job = ctx.rebuildJobs.get(params.jobId);
        if (!job) throw notFound(`no rebuild job ${params.jobId} is known to this process`);
        return job;
      },
  }),
  operator.get('/internal/metrics', 'getMetrics', {
    summary: 'Prometheus metrics of this process',
    answers: {
      200: {
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
    errors: [401],
    handle:
      (ctx) =>
      async ({ res }) => {
        await ctx.readModels.reportMetrics(ctx.metrics);
        res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
      },
  }),
]);
