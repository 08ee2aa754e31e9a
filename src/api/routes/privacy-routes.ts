import { Router } from 'express';
import type { Response } from 'express';
import { changeResourcePrivacy, unshareResourceFromCommunity } from '../../commands/change-resource-privacy';
import type { ResourceCommandResult } from '../../commands/resource-command-runner';
import { getResourcePrivacy } from '../../projections/resources/privacy-queries';
import type { AppContext } from '../app-context';
import { callerOf, requestInfoOf } from '../middleware/authenticate';
import { readYourWrites } from '../read-your-writes';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from '../schemas/privacy-schemas';
import { parseWith } from '../validation';

/** SPEC "GetResourcePrivacy", "SaveResourcePrivacy", "UnshareResourceFromCommunity". */
export function privacyRoutes(ctx: AppContext): Router {
  const router = Router();
  /** Read-your-writes, then SPEC's answer: status 200 with an empty body. */
  const done = async (res: Response, result: ResourceCommandResult) => {
    await readYourWrites(ctx, result.position);
    res.status(200).end();
  };

  router.get('/api/Privacy/GetResourcePrivacy', async (req, res) => {
    const { resourceId } = parseWith(getResourcePrivacyQuery, req.query);
    const viewer = await ctx.directory.viewer(callerOf(res).userId);
    res.json(await getResourcePrivacy(ctx.resources, ctx.directory, viewer, resourceId));
  });

  router.post('/api/Privacy/SaveResourcePrivacy', async (req, res) => {
    const body = parseWith(saveResourcePrivacyBody, req.body);
    await done(res, await changeResourcePrivacy(ctx, requestInfoOf(res), body));
  });

  router.post('/api/Privacy/UnshareResourceFromCommunity', async (req, res) => {
    const body = parseWith(unshareResourceBody, req.body);
    await done(res, await unshareResourceFromCommunity(ctx, requestInfoOf(res), body));
  });

  return router;
}
