import type { Response, Router } from 'express';
import { changeResourcePrivacy, unshareResourceFromCommunity } from './change-resource-privacy';
import type { ResourceCommandResult } from '../resources/resource-command-runner';
import { resourcePrivacySchema } from './resource-privacy';
import { getResourcePrivacy } from './privacy-queries';
import type { RecordedWrite } from '../ports/idempotency-keys';
import type { AppContext } from '../app/app-context';
import { callerOf, requestInfoOf } from '../api/middleware/authenticate';
import { readYourWrites } from '../api/read-your-writes';
import { routeGroup, routerOf } from '../api/route-declaration';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from './privacy-schemas';

/** Read-your-writes, then SPEC's answer: status 200 with an empty body. */
const done = async (ctx: AppContext, res: Response, result: ResourceCommandResult): Promise<void> => {
  await readYourWrites(ctx, result.position);
  res.status(200).end();
};

/** The answer of a privacy change whose attempt died after its write: the same empty 200. */
const resumedAsDone = {
  store: (ctx: AppContext) => ctx,
  resume: (ctx: AppContext) => async (write: RecordedWrite, { res }: { res: Response }) => done(ctx, res, { position: write.position, resource: undefined }),
};

/** SPEC "GetResourcePrivacy", "SaveResourcePrivacy", "UnshareResourceFromCommunity". */
export const PRIVACY_ROUTES = routeGroup<AppContext>({ tag: 'privacy', access: 'api' }, (privacy) => [
  privacy.get('/api/Privacy/GetResourcePrivacy', 'getResourcePrivacy', {
    summary: "A resource's own level and circles, the shares the caller may see, and where it could be shared",
    request: { query: getResourcePrivacyQuery },
    answers: { 200: { description: 'The privacy of the resource, as this caller may see it', json: resourcePrivacySchema } },
    errors: [400, 401, 403, 404],
    handle: (ctx) => async ({ query, res }) => {
      const viewer = await ctx.directory.viewer(callerOf(res).userId);
      return getResourcePrivacy(ctx.resources, ctx.directory, viewer, query.resourceId);
    },
  }),
  privacy.post('/api/Privacy/SaveResourcePrivacy', 'saveResourcePrivacy', {
    summary: 'Change the own level, granted circles and shares in one atomic call',
    request: { body: saveResourcePrivacyBody },
    answers: { 200: { description: 'Applied; empty body (read the privacy back to see the result)' } },
    // 409: a share the caller may withdraw but whose level is someone else's (DESIGN "Privacy changes").
    errors: [400, 401, 403, 404, 409, 413, 415, 422],
    idempotent: resumedAsDone,
    handle: (ctx) => async ({ body, res }) => {
      await done(ctx, res, await changeResourcePrivacy(ctx, requestInfoOf(res), body));
    },
  }),
  privacy.post('/api/Privacy/UnshareResourceFromCommunity', 'unshareResourceFromCommunity', {
    summary: 'Withdraw one share',
    request: { body: unshareResourceBody },
    answers: { 200: { description: 'Withdrawn (or there was no such share); empty body' } },
    errors: [400, 401, 403, 404, 409, 413, 415, 422],
    idempotent: resumedAsDone,
    handle: (ctx) => async ({ body, res }) => {
      await done(ctx, res, await unshareResourceFromCommunity(ctx, requestInfoOf(res), body));
    },
  }),
]);

export const privacyRoutes = (ctx: AppContext, router?: Router): Router => routerOf(PRIVACY_ROUTES, ctx, [], router);
