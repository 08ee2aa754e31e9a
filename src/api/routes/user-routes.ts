import { Router } from 'express';
import { callerOf } from '../middleware/authenticate';

export function userRoutes(): Router {
  const router = Router();
  router.get('/api/user/getcurrent', (_req, res) => {
    const caller = callerOf(res);
    res.json({
      id: caller.userId,
      name: caller.name,
      status: caller.status,
      credential: caller.actor.credential,
      apiKeyId: caller.actor.apiKeyId ?? null,
      impersonatorId: caller.actor.impersonatorId ?? null,
    });
  });
  return router;
}
