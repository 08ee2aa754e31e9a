import { Router } from 'express';
import { ingestDirectoryEvents } from '../../commands/ingest-directory-events';
import { directoryBatchSchema } from '../../domain/directory/directory-events';
import { systemActor } from '../../domain/event';
import type { AppContext } from '../app-context';
import { requireInternalToken } from '../middleware/internal-token';
import { parseWith } from '../validation';

/** The platform's feed of people, communities, projects and circles (DESIGN.md "Directory"). */
export function directoryRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post('/internal/directory/events', requireInternalToken(ctx.secrets.directoryToken), async (req, res) => {
    const batch = parseWith(directoryBatchSchema, req.body);
    const position = await ingestDirectoryEvents(ctx.eventStore, batch, {
      actor: systemActor,
      correlationId: res.locals.correlationId as string,
      at: ctx.clock().toISOString(),
    });
    await ctx.runner.waitFor(position, ctx.config.PROJECTION_WAIT_MS);
    res.json({ accepted: batch.events.length, position: position.toString() });
  });
  return router;
}
