import type { Router } from 'express';
import { releaseIfUnreferenced } from '../files/file-lifecycle';
import { metadataOf } from '../commands/request-info';
import { currentResource } from './resource-command-runner';
import { removeProjectResource, saveProjectResource } from './save-project-resource';
import { resourceListSchema, savedResourceOf, savedResourceSchema } from './resource-record';
import { listResources, savedResourceRecord } from './resource-queries';
import { communityViewKey, projectViewKey } from './access/views';
import { readScope } from '../projections/read-scopes';
import type { AppContext } from '../app/app-context';
import { callerOf, requestInfoOf } from '../api/middleware/authenticate';
import { pageRequestOf } from '../api/pagination';
import { readYourWrites } from '../api/read-your-writes';
import { routeGroup, routerOf } from '../api/route-declaration';
import { removeProjectResourceSchema } from '../api/response-schemas';
import { READ_ONLY_RECORD_FIELDS, getResourceListBody, removeProjectResourceQuery, saveProjectResourceBody } from './resource-schemas';

/** SPEC "GetResourceList", "SaveProjectResource", "RemoveProjectResource". */
export const RESOURCE_ROUTES = routeGroup<AppContext>({ tag: 'resources', access: 'api' }, (resources) => [
  resources.post('/api/Project/GetResourceList', 'getResourceList', {
    summary: 'The resources of a project the caller may see, one page of them, with capability flags',
    request: { body: getResourceListBody },
    answers: { 200: { description: 'One page of the resources the caller may see', json: resourceListSchema } },
    errors: [400, 401, 403, 404, 413, 415],
    // The answer is the caller's view of the read models: who asks and what they ask say the rest.
    remember: {
      memo: (ctx) => ctx.answers,
      key: ({ body, res }) => `${callerOf(res).userId}:${JSON.stringify(body)}`,
      scopes: ({ body }) => [readScope.directory, readScope.view(body.communityId ? communityViewKey(body.communityId) : projectViewKey(body.projectId), body.projectId)],
    },
    handle: (ctx) => async ({ body, res }) => {
      const viewer = await ctx.directory.viewer(callerOf(res).userId);
      return listResources(ctx.resources, ctx.directory, viewer, {
        projectId: body.projectId,
        communityId: body.communityId ? body.communityId : null,
        paragraphId: body.paragraphId ? body.paragraphId : null,
        concept: body.concept ? body.concept : null,
        tags: body.tags ?? [],
        orderBy: body.orderBy ?? 0,
        page: pageRequestOf(body),
      });
    },
  }),
  resources.post('/api/Resource/SaveProjectResource', 'saveProjectResource', {
    summary: 'Create (`id` 0) or update a resource; answers once the read models caught up',
    request: { body: saveProjectResourceBody, ignoredBodyFields: READ_ONLY_RECORD_FIELDS },
    answers: { 200: { description: 'The saved resource', json: savedResourceSchema } },
    errors: [400, 401, 403, 404, 409, 413, 415, 422],
    idempotent: {
      store: (ctx) => ctx,
      // The write of an attempt that died before it answered: the resource it saved, as it is now.
      resume: (ctx) => async (write, { res }) => {
        await readYourWrites(ctx, write.position);
        const resource = await currentResource(ctx.eventStore, write.streamId);
        const viewer = await ctx.directory.viewer(callerOf(res).userId);
        return savedResourceOf(await savedResourceRecord(ctx.directory, viewer, resource));
      },
    },
    handle: (ctx) => async ({ body, res }) => {
      const request = requestInfoOf(res);
      const result = await saveProjectResource(ctx, request, body);
      await readYourWrites(ctx, result.position);
      await releaseIfUnreferenced(ctx, result.released, result.position, metadataOf(request, ctx.clock().toISOString()));
      if (!result.resource) throw new Error('a saved resource must exist');
      const viewer = await ctx.directory.viewer(request.caller.userId);
      return savedResourceOf(await savedResourceRecord(ctx.directory, viewer, result.resource));
    },
  }),
  resources.get('/api/Resource/RemoveProjectResource', 'removeProjectResource', {
    summary: 'Delete a resource permanently, with its circle grants and shares',
    request: { query: removeProjectResourceQuery },
    answers: { 200: { description: 'Deleted: `{"statusCode": 200}`', json: removeProjectResourceSchema } },
    errors: [400, 401, 403, 404],
    handle: (ctx) => async ({ query, res }) => {
      const request = requestInfoOf(res);
      const result = await removeProjectResource(ctx, request, query.id);
      await readYourWrites(ctx, result.position);
      await releaseIfUnreferenced(ctx, result.released, result.position, metadataOf(request, ctx.clock().toISOString()));
      return { statusCode: 200 };
    },
  }),
]);

export const resourceRoutes = (ctx: AppContext, router?: Router): Router => routerOf(RESOURCE_ROUTES, ctx, [], router);
