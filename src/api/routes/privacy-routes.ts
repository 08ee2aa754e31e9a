import { Router } from 'express';
import type { Response } from 'express';
import { changeResourcePrivacy, unshareResourceFromCommunity } from '../../commands/change-resource-privacy';
import type { ResourceCommandResult } from '../../commands/resource-command-runner';
import { getResourcePrivacy } from '../../projections/resources/privacy-queries';
import type { AppContext } from '../app-context';
import { callerOf } from '../middleware/authenticate';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from '../schemas/privacy-schemas';
import { parseWith } from '../validation';

/** SPEC "GetResourcePrivacy", "SaveResourcePrivacy", "UnshareResourceFromCommunity". */
export function privacyRoutes(ctx: AppContext): Router {
  const router = Router();
  const deps = { eventStore: ctx.eventStore, directory: ctx.directory, clock: ctx.clock };
  const requestInfo = (res: Response) => ({
    caller: callerOf(res),
    correlationId: res.locals.correlationId as string,
  });
  /** Read-your-writes, then SPEC's answer: status 200 with an empty body. */
  const done = async (res: Response, result: ResourceCommandResult) => {
    if (result.position !== undefined) await ctx.runner.waitFor(result.position, ctx.config.PROJECTION_WAIT_MS);
    res.status(200).end();
  };

  router.get('/api/Privacy/GetResourcePrivacy', async (req, res) => {
    const { resourceId } = parseWith(getResourcePrivacyQuery, req.query);
    const viewer = await ctx.directory.viewer(callerOf(res).userId);
    res.json(await getResourcePrivacy(ctx.readStore, ctx.directory, viewer, resourceId));
  });

  router.post('/api/Privacy/SaveResourcePrivacy', async (req, res) => {
    const body = parseWith(saveResourcePrivacyBody, req.body);
    await done(res, await changeResourcePrivacy(deps, requestInfo(res), body));
  });

  router.post('/api/Privacy/UnshareResourceFromCommunity', async (req, res) => {
    const body = parseWith(unshareResourceBody, req.body);
    await done(res, await unshareResourceFromCommunity(deps, requestInfo(res), body));
  });

  return router;
}
