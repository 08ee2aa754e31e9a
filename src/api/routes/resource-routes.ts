import { Router } from 'express';
import { removeProjectResource, saveProjectResource } from '../../commands/save-project-resource';
import { listResources, savedResourceRecord } from '../../projections/resources/resource-queries';
import type { AppContext } from '../app-context';
import { callerOf } from '../middleware/authenticate';
import { pageRequestOf } from '../pagination';
import { SAVED_RESOURCE_FIELDS } from '../schemas/response-schemas';
import { getResourceListBody, removeProjectResourceQuery, saveProjectResourceBody } from '../schemas/resource-schemas';
import { parseWith } from '../validation';

/** The fields SPEC.md lists for the SaveProjectResource response (its response schema's keys). */
const SAVED_FIELDS = Object.keys(SAVED_RESOURCE_FIELDS) as (keyof typeof SAVED_RESOURCE_FIELDS)[];

export function resourceRoutes(ctx: AppContext): Router {
  const router = Router();
  const deps = { eventStore: ctx.eventStore, directory: ctx.directory, clock: ctx.clock };
  const requestInfo = (res: Parameters<typeof callerOf>[0]) => ({
    caller: callerOf(res),
    correlationId: res.locals.correlationId as string,
  });

  router.post('/api/Project/GetResourceList', async (req, res) => {
    const body = parseWith(getResourceListBody, req.body);
    const viewer = await ctx.directory.viewer(callerOf(res).userId);
    const answer = await listResources(ctx.readStore, ctx.directory, viewer, {
      projectId: body.projectId,
      communityId: body.communityId ? body.communityId : null,
      paragraphId: body.paragraphId ? body.paragraphId : null,
      concept: body.concept ? body.concept : null,
      tags: body.tags ?? [],
      orderBy: body.orderBy ?? 0,
      page: pageRequestOf(body),
    });
    res.json(answer);
  });

  router.post('/api/Resource/SaveProjectResource', async (req, res) => {
    const body = parseWith(saveProjectResourceBody, req.body);
    const request = requestInfo(res);
    const result = await saveProjectResource(deps, request, body);
    if (result.position !== undefined) await ctx.runner.waitFor(result.position, ctx.config.PROJECTION_WAIT_MS);
    if (!result.resource) throw new Error('a saved resource must exist');
    const viewer = await ctx.directory.viewer(request.caller.userId);
    const record = await savedResourceRecord(ctx.directory, viewer, result.resource);
    res.json(Object.fromEntries(SAVED_FIELDS.map((field) => [field, record[field]])));
  });

  router.get('/api/Resource/RemoveProjectResource', async (req, res) => {
    const { id } = parseWith(removeProjectResourceQuery, req.query);
    const result = await removeProjectResource(deps, requestInfo(res), id);
    if (result.position !== undefined) await ctx.runner.waitFor(result.position, ctx.config.PROJECTION_WAIT_MS);
    res.json({ statusCode: 200 });
  });

  return router;
}
