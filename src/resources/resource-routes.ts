import { currentResource } from './resource-command-runner';
import type { SaveResourceDeps } from './project-resource-commands';
import { removeProjectResource, saveProjectResource } from './project-resource-commands';
import { resourceListSchema, savedResourceOf, savedResourceSchema } from './resource-record';
import { listResources, savedResourceRecord } from './resource-queries';
import { communityViewKey, projectViewKey } from './access/views';
import { readScope } from '../projections/read-scopes';
import type { DirectoryReader } from '../directory/directory-reader';
import type { AnswerMemo } from '../projections/answer-memo';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { ResourceViews } from './resource-view-store';
import { pageRequestOf } from '../api/pagination';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import type { PageCursors } from '../api/page-cursor';
import { resourceListCursors } from './resource-list-cursor';
import { removeProjectResourceSchema } from '../api/response-schemas';
import {
  READ_ONLY_RECORD_FIELDS,
  getResourceListBody,
  removeProjectResourceQuery,
  saveProjectResourceBody,
} from './resource-schemas';

/** What the resource routes read and write through; read at each request (a blue/green rebuild replaces the stores). */
export type ResourceRouteDeps = SaveResourceDeps & {
  readonly directory: DirectoryReader;
  readonly stores: { readonly resources: ResourceViews };
  readonly answers: AnswerMemo;
  readonly idempotencyKeys: IdempotencyKeys;
  readonly settle: Settle;
  readonly cursors: PageCursors;
};

/** GetResourceList, SaveProjectResource and RemoveProjectResource (docs/api.md, and the OpenAPI document). */
export const RESOURCE_ROUTES = routeGroup<ResourceRouteDeps>(
  { tag: 'resources', access: 'api', settle: (ctx) => ctx.settle },
  (resources) => [
    resources.post('/api/Project/GetResourceList', 'getResourceList', {
      summary: 'The resources of a project the caller may see, one page of them, with capability flags',
      request: { body: getResourceListBody },
      answers: { 200: { description: 'One page of the resources the caller may see', json: resourceListSchema } },
      errors: [400, 401, 403, 404, 413, 415],
      // The answer is the caller's view of the read models: who asks and what they ask say the rest.
      remember: {
        memo: (ctx) => ctx.answers,
        key: ({ body, caller }) => `${caller.userId}:${JSON.stringify(body)}`,
        scopes: ({ body }) => [
          readScope.directory,
          readScope.view(
            body.communityId ? communityViewKey(body.communityId) : projectViewKey(body.projectId),
            body.projectId,
          ),
        ],
      },
      handle:
        (ctx) =>
        async ({ body, caller }) => {
          const filters = {
            projectId: body.projectId,
            communityId: body.communityId ? body.communityId : null,
            paragraphId: body.paragraphId ? body.paragraphId : null,
            concept: body.concept ? body.concept : null,
            tags: body.tags ?? [],
            orderBy: body.orderBy ?? 0,
          };
          const cursors = resourceListCursors(ctx.cursors, filters);
          const after = body.cursor == null ? null : cursors.open(body.cursor);
          const viewer = await ctx.directory.viewer(caller.userId);
          return listResources(
            ctx.stores.resources,
            ctx.directory,
            viewer,
            { ...filters, page: pageRequestOf(body), after },
            cursors.seal,
          );
        },
    }),
    resources.post('/api/Resource/SaveProjectResource', 'saveProjectResource', {
      writes: true,
      summary: 'Create (`id` 0) or update a resource; answers once the read models caught up',
      request: { body: saveProjectResourceBody, ignoredBodyFields: READ_ONLY_RECORD_FIELDS },
      answers: { 200: { description: 'The saved resource', json: savedResourceSchema } },
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      idempotent: {
        store: (ctx) => ctx,
        // The write of an attempt that died before it answered: the resource it saved, as it is now.
        resume:
          (ctx) =>
          async (write, { caller }) =>
            written(write.position, async () => {
              const resource = await currentResource(ctx.eventStore, write.streamId);
              const viewer = await ctx.directory.viewer(caller.userId);
              return savedResourceOf(await savedResourceRecord(ctx.directory, viewer, resource));
            }),
      },
      handle:
        (ctx) =>
        async ({ body, request }) => {
          const { write, resource } = await saveProjectResource(ctx, request, body);
          return written(write, async () => {
            if (!resource) throw new Error('a saved resource must exist');
            const viewer = await ctx.directory.viewer(request.caller.userId);
            return savedResourceOf(await savedResourceRecord(ctx.directory, viewer, resource));
          });
        },
    }),
    resources.get('/api/Resource/RemoveProjectResource', 'removeProjectResource', {
      writes: true,
      summary: 'Delete a resource permanently, with its circle grants and shares',
      request: { query: removeProjectResourceQuery },
      answers: { 200: { description: 'Deleted: `{"statusCode": 200}`', json: removeProjectResourceSchema } },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ query, request }) => {
          const { write } = await removeProjectResource(ctx, request, query.id);
          return written(write, () => ({ statusCode: 200 }));
        },
    }),
  ],
);
