import { Router } from 'express';
import { z } from 'zod';
import { isCommunityAdmin } from '../../domain/access/viewer';
import { forbidden, notFound } from '../../domain/errors';
import { applicationDefinition, listApplications } from '../../projections/applications/application-queries';
import type { AppContext } from '../app-context';
import { callerOf } from '../middleware/authenticate';
import { pageRequestOf, paginated } from '../pagination';
import { parseWith } from '../validation';

/** A path id: decimal digits naming a positive safe integer (`0`, `-1`, `1.5`, `1e3`, `abc` are 400). */
const pathId = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

export const applicationsPathParams = z.object({ applicationDefinitionId: pathId });

/**
 * Request body (SPEC.md "Paginated endpoints"): skip, take (alias pageSize) and orderBy —
 * 0 applicationId ascending (the default), 1 submittedAt descending then applicationId descending.
 * Fields this endpoint does not know are ignored.
 */
export const listApplicationsBody = paginated({
  orderBy: z.union([z.literal(0), z.literal(1)]).optional(),
});

/**
 * Applications submitted to an application definition, for the approved admins of the
 * definition's community. Checked in order: path id and body 400; unknown definition 404;
 * caller not an approved admin of the owning community 403.
 */
export function applicationRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post('/api/ApplicationDefinition/:applicationDefinitionId/Applications', async (req, res) => {
    const caller = callerOf(res);
    const { applicationDefinitionId } = parseWith(applicationsPathParams, req.params);
    // A POST without a body is a request for the defaults.
    const body = parseWith(listApplicationsBody, req.body ?? {});
    const definition = await applicationDefinition(ctx.applications, applicationDefinitionId);
    if (!definition) throw notFound(`no application definition ${applicationDefinitionId}`);
    const viewer = await ctx.directory.viewer(caller.userId);
    if (!isCommunityAdmin(viewer, definition.communityId)) {
      throw forbidden('only the administrators of the community owning this application definition may list its applications');
    }
    res.json(await listApplications(ctx.applications, definition, { orderBy: body.orderBy ?? 0, page: pageRequestOf(body) }));
  });
  return router;
}
