import { z } from 'zod';
import { pathId } from '../contract/primitives';
import { applicationListSchema } from './application-list';
import { canListApplications } from './application-access';
import { forbidden, notFound, validationError } from '../domain/errors';
import type { PageCursors } from '../api/page-cursor';
import { applicationDefinition, listApplications } from './application-queries';
import type { DirectoryReader } from '../directory/directory-reader';
import type { ApplicationStore } from './application-queries';
import { pageRequestOf, paginated } from '../api/pagination';
import { routeGroup } from '../api/route-declaration';

/** What the application routes read; read at each request (a blue/green rebuild replaces the stores). */
export type ApplicationRouteDeps = {
  readonly directory: DirectoryReader;
  readonly stores: { readonly applications: ApplicationStore };
  readonly cursors: PageCursors;
};

/** A cursor's key as this list's order has it: [submittedAt, id] submitted last first, [id] by id. */
function applicationCursorKey(key: (string | number)[], orderBy: 0 | 1): (string | number)[] {
  const fits =
    orderBy === 1
      ? key.length === 2 && typeof key[0] === 'string' && typeof key[1] === 'number'
      : key.length === 1 && typeof key[0] === 'number';
  if (!fits) throw validationError('cursor', 'cursor does not fit this list; start again without one');
  return key;
}

export const applicationsPathParams = z.object({
  applicationDefinitionId: pathId.meta({ description: 'The application definition', example: '70' }),
});

/**
 * Request body (docs/api.md "Paginated endpoints"): skip, take (alias pageSize) and orderBy —
 * 0 applicationId ascending (the default), 1 submittedAt descending then applicationId descending.
 * Fields this endpoint does not know are ignored.
 */
export const listApplicationsBody = paginated({
  orderBy: z
    .union([z.literal(0), z.literal(1)])
    .optional()
    .meta({
      description: '0: application id ascending; 1: submitted last first (then id descending); default 0',
      default: 0,
      example: 1,
    }),
}).meta({ example: { skip: 0, take: 10, orderBy: 1 } });

/**
 * Applications submitted to an application definition, for the approved admins of the
 * definition's community. Checked in order: path id and body 400; unknown definition 404;
 * caller not allowed 403.
 */
export const APPLICATION_ROUTES = routeGroup<ApplicationRouteDeps>(
  { tag: 'applications', access: 'api' },
  (applications) => [
    applications.post('/api/ApplicationDefinition/{applicationDefinitionId}/Applications', 'listApplications', {
      summary: "One page of an application definition's applications, for the admins of its community",
      // A POST without a body is a request for the defaults.
      request: { params: applicationsPathParams, body: listApplicationsBody, bodyOptional: true },
      answers: {
        200: {
          description: 'One page of applications, their total and the values of each filter',
          json: applicationListSchema,
        },
      },
      errors: [400, 401, 403, 404, 413, 415],
      handle:
        (ctx) =>
        async ({ params, body, caller }) => {
          const definition = await applicationDefinition(ctx.stores.applications, params.applicationDefinitionId);
          if (!definition) throw notFound(`no application definition ${params.applicationDefinitionId}`);
          const viewer = await ctx.directory.viewer(caller.userId);
          if (!canListApplications(viewer, definition)) {
            throw forbidden(
              'only the administrators of the community owning this application definition may list its applications',
            );
          }
          const orderBy = body.orderBy ?? 0;
          const identity = {
            list: 'Applications',
            applicationDefinitionId: definition.applicationDefinitionId,
            orderBy,
          };
          const after =
            body.cursor == null ? null : applicationCursorKey(ctx.cursors.open(body.cursor, identity), orderBy);
          return listApplications(
            ctx.stores.applications,
            definition,
            { orderBy, page: pageRequestOf(body), after },
            (key) => ctx.cursors.seal(identity, key),
          );
        },
    }),
  ],
);
