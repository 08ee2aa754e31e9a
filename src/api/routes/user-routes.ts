import { callerOf } from '../middleware/authenticate';
import { routeGroup } from '../route-declaration';
import type { CurrentUser } from '../response-schemas';
import { currentUserSchema } from '../response-schemas';

export const USER_ROUTES = routeGroup<void>({ tag: 'user', access: 'api' }, (user) => [
  user.get('/api/user/getcurrent', 'getCurrentUser', {
    summary: 'The current user and the credential of this request',
    answers: { 200: { description: 'The current user', json: currentUserSchema } },
    errors: [401, 403],
    handle:
      () =>
      ({ res }) => {
        const caller = callerOf(res);
        return {
          id: caller.userId,
          name: caller.name,
          status: caller.status,
          // An /api request is made with a session or an API key, never as the system.
          credential: caller.actor.credential as CurrentUser['credential'],
          apiKeyId: caller.actor.apiKeyId ?? null,
          impersonatorId: caller.actor.impersonatorId ?? null,
        };
      },
  }),
]);
