import { DomainError } from '../../src/domain/errors';
import type { ResourceDecisionContext } from '../../src/resources/resource-commands';
import {
  P,
  RID,
  changePrivacy,
  context,
  created,
  createResource,
  deleteResource,
  given,
  ownerBlock,
  project,
  team,
  updateResource,
  withContext,
} from './resource-fixtures';

describe('every resource command: the facts must be those of the resource’s project', () => {
  // The handler loads the project of the resource; facts of another project are a bug in the
  // caller (a plain Error, a 500), not a refusal of the request.
  const otherProjectFacts: ResourceDecisionContext = { ...context(team), project: { ...project, projectId: P + 1 } };
  const isNotADomainError = (error: Error) => !(error instanceof DomainError);

  it.each([
    ['CreateResource', [], createResource()],
    ['UpdateResource', [created()], updateResource()],
    ['DeleteResource', [created()], deleteResource()],
    ['ChangeResourcePrivacy', [created()], changePrivacy({ owner: ownerBlock(3) })],
  ] as const)(
    'given a resource of P, when %s is decided with the facts of another project, then it throws a plain Error',
    (_command, history, request) => {
      given([...history])
        .when(withContext(request, otherProjectFacts))
        .thenThrows(Error, isNotADomainError);
    },
  );

  it('given a resource of P, when it is deleted with the facts of P, then it is deleted (the same facts, the right project)', () => {
    given([created()])
      .when(withContext(deleteResource(), context(team)))
      .then([{ type: 'ResourceDeleted', data: { resourceId: RID, resourceUrl: 'resource_files/abc/manual.pdf' } }]);
  });
});
