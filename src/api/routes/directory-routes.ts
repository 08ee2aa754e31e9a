import { Router } from 'express';
import { ingestDirectoryEvents } from '../../commands/ingest-directory-events';
import { directoryBatchSchema } from '../../domain/directory/directory-events';
import { systemActor } from '../../domain/event';
import type { AppContext } from '../app-context';
import { requireInternalToken } from '../middleware/internal-token';
import { readYourWrites } from '../read-your-writes';
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
    await readYourWrites(ctx, position);
    res.json({ accepted: batch.events.length, position: position.toString() });
  });
  return router;
}
