import type { Response } from 'express';
import { changeResourcePrivacy, unshareResourceFromCommunity } from './change-resource-privacy';
import type { ResourceCommandDeps } from '../resources/resource-command-runner';
import type { ResourceViews } from '../resources/resource-view-store';
import type { DirectoryReader } from '../directory/directory-reader';
import { resourcePrivacySchema } from './privacy-answer-schemas';
import { getResourcePrivacy } from './privacy-queries';
import type { IdempotencyKeys, RecordedWrite } from '../ports/idempotency-keys';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from './privacy-schemas';

/** What the privacy routes read and write through; read at each request (a blue/green rebuild replaces the stores). */
export type PrivacyRouteDeps = ResourceCommandDeps & {
  readonly directory: DirectoryReader;
  readonly stores: { readonly resources: ResourceViews };
  readonly idempotencyKeys: IdempotencyKeys;
  readonly settle: Settle;
};

/** The answer to a privacy change: status 200 with an empty body, once the change is visible. */
const done = (res: Response, write: { readonly position: bigint } | undefined) =>
  written(write?.position, () => void res.status(200).end());

/** The answer of a privacy change whose attempt died after its write: the same empty 200. */
const resumedAsDone = {
  store: (ctx: PrivacyRouteDeps) => ctx,
  resume:
    () =>
    async (write: RecordedWrite, { res }: { res: Response }) =>
      done(res, write),
};

/** GetResourcePrivacy, SaveResourcePrivacy and UnshareResourceFromCommunity (docs/api.md "Sharing"). */
export const PRIVACY_ROUTES = routeGroup<PrivacyRouteDeps>(
  { tag: 'privacy', access: 'api', settle: (ctx) => ctx.settle },
  (privacy) => [
    privacy.get('/api/Privacy/GetResourcePrivacy', 'getResourcePrivacy', {
      summary: "A resource's own level and circles, the shares the caller may see, and where it could be shared",
      request: { query: getResourcePrivacyQuery },
      answers: {
        200: { description: 'The privacy of the resource, as this caller may see it', json: resourcePrivacySchema },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ query, caller }) => {
          const viewer = await ctx.directory.viewer(caller.userId);
          return getResourcePrivacy(ctx.stores.resources, ctx.directory, viewer, query.resourceId);
        },
    }),
    privacy.post('/api/Privacy/SaveResourcePrivacy', 'saveResourcePrivacy', {
      writes: true,
      summary: 'Change the own level, granted circles and shares in one atomic call',
      request: { body: saveResourcePrivacyBody },
      answers: { 200: { description: 'Applied; empty body (read the privacy back to see the result)' } },
      // 409: a share the caller may withdraw but whose level is someone else's.
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      idempotent: resumedAsDone,
      handle:
        (ctx) =>
        async ({ body, request, res }) =>
          done(res, (await changeResourcePrivacy(ctx, request, body)).write),
    }),
    privacy.post('/api/Privacy/UnshareResourceFromCommunity', 'unshareResourceFromCommunity', {
      writes: true,
      summary: 'Withdraw one share',
      request: { body: unshareResourceBody },
      answers: { 200: { description: 'Withdrawn (or there was no such share); empty body' } },
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      idempotent: resumedAsDone,
      handle:
        (ctx) =>
        async ({ body, request, res }) =>
          done(res, (await unshareResourceFromCommunity(ctx, request, body)).write),
    }),
  ],
);
