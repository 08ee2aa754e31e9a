import { Router } from 'express';
import { releaseIfUnreferenced } from '../../commands/file-lifecycle';
import { removeProjectResource, saveProjectResource } from '../../commands/save-project-resource';
import { savedResourceOf } from '../../contract/resource-record';
import { listResources, savedResourceRecord } from '../../projections/resources/resource-queries';
import type { AppContext } from '../app-context';
import { callerOf, requestInfoOf } from '../middleware/authenticate';
import { pageRequestOf } from '../pagination';
import { readYourWrites } from '../read-your-writes';
import { getResourceListBody, removeProjectResourceQuery, saveProjectResourceBody } from '../schemas/resource-schemas';
import { parseWith } from '../validation';

const fileMetadata = (ctx: AppContext, request: ReturnType<typeof requestInfoOf>) => ({
  actor: request.caller.actor,
  correlationId: request.correlationId,
  at: ctx.clock().toISOString(),
});

export function resourceRoutes(ctx: AppContext): Router {
  const router = Router();

  router.post('/api/Project/GetResourceList', async (req, res) => {
    const body = parseWith(getResourceListBody, req.body);
    const viewer = await ctx.directory.viewer(callerOf(res).userId);
    const answer = await listResources(ctx.resources, ctx.directory, viewer, {
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
    const request = requestInfoOf(res);
    const result = await saveProjectResource(ctx, request, body);
    await readYourWrites(ctx, result.position);
    await releaseIfUnreferenced(ctx, result.released, result.position, fileMetadata(ctx, request));
    if (!result.resource) throw new Error('a saved resource must exist');
    const viewer = await ctx.directory.viewer(request.caller.userId);
    const record = await savedResourceRecord(ctx.directory, viewer, result.resource);
    res.json(savedResourceOf(record));
  });

  router.get('/api/Resource/RemoveProjectResource', async (req, res) => {
    const { id } = parseWith(removeProjectResourceQuery, req.query);
    const request = requestInfoOf(res);
    const result = await removeProjectResource(ctx, request, id);
    await readYourWrites(ctx, result.position);
    await releaseIfUnreferenced(ctx, result.released, result.position, fileMetadata(ctx, request));
    res.json({ statusCode: 200 });
  });

  return router;
}
