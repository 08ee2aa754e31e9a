import { openApiDocument } from '../../src/app/route-groups';

/**
 * Every POST that changes state takes an Idempotency-Key (docs/api.md "Retries: Idempotency-Key"), and the
 * document says so on each: a POST added without it fails here. The POSTs that only read (a query
 * with a JSON body), the operators' rebuild (README: a repeat builds the same read models) and their
 * decisions on a parked event (a repeated retry folds it again or finds it gone, a repeated skip finds
 * it gone: 404) are named, so the rest stays checked.
 */
const READS = ['getResourceList', 'listApplications'];
const WITHOUT_KEY = ['rebuildReadModels', 'retryParkedEvent', 'skipParkedEvent'];

type Operation = { operationId: string; parameters?: { in: string; name: string }[]; responses: object };
const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, Operation>> };
const posts = Object.entries(doc.paths).flatMap(([path, item]) =>
  item.post ? [{ path, op: item.post, name: item.post.operationId }] : [],
);

describe('the POST routes and Idempotency-Key', () => {
  it('given the document, then the exempt POSTs it names exist', () => {
    expect(posts.map((p) => p.name)).toEqual(expect.arrayContaining([...READS, ...WITHOUT_KEY]));
  });

  it.each(posts.filter((p) => ![...READS, ...WITHOUT_KEY].includes(p.name)))(
    'given POST $path, which changes state, then it takes an Idempotency-Key and documents its 409 and 422',
    ({ op }) => {
      expect(op.parameters?.filter((p) => p.in === 'header').map((p) => p.name)).toContain('Idempotency-Key');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
    },
  );
});
