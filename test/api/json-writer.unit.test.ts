import fc from 'fast-check';
import { z } from 'zod';
import { jsonWriterFor } from '../../src/api/json-writer';
import { resourceListSchema, sharedWithSchema, type ResourceListAnswer } from '../../src/contract/resource-record';

/** Any UTF-16 string, lone surrogates and control characters included: what escaping must survive. */
const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 }).map((units) => String.fromCharCode(...units));
const id = fc.integer({ min: -(2 ** 31), max: 2 ** 53 - 1 });
const level = fc.integer({ min: 1, max: 5 });

const record = fc.record({
  id,
  name: anyText,
  description: anyText,
  resourceUrl: anyText,
  resourceType: fc.integer({ min: 0, max: 3 }),
  image: anyText,
  icon: anyText,
  postDate: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  lastUpdated: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  resourceTags: fc.array(anyText, { maxLength: 3 }),
  privacyLevel: level,
  effectivePrivacyLevel: level,
  originCommunityId: fc.option(id),
  originCommunityName: fc.option(anyText),
  currentlySharedWith: fc.array(fc.record({ communityId: id, communityName: anyText, privacyLevel: level }), { maxLength: 3 }),
  canEdit: fc.option(fc.boolean()),
  isProjectScoped: fc.boolean(),
  isCommunityProjectScoped: fc.boolean(),
  projectId: fc.option(id),
  communityProjectId: fc.option(id),
  paragraphId: fc.option(id),
});

const listAnswer: fc.Arbitrary<ResourceListAnswer> = fc.record({
  canEditResources: fc.boolean(),
  canEditPrivacy: fc.boolean(),
  paragraphId: fc.option(id),
  resources: fc.record({ count: fc.nat(), list: fc.array(record, { maxLength: 5 }) }),
});

describe('the JSON writer compiled from an answer schema', () => {
  it('given any list answer, when written, then the text is what JSON.stringify writes', () => {
    const write = jsonWriterFor(resourceListSchema);
    fc.assert(
      fc.property(listAnswer, (answer) => {
        expect(write(answer)).toBe(JSON.stringify(answer));
      }),
      { numRuns: 300 },
    );
  });

  it('given an answer that carries a field its schema does not declare, when written, then that field is left out', () => {
    const write = jsonWriterFor(sharedWithSchema);
    const answer = sharedWithSchema.parse({ communityId: 7, communityName: 'Seven', privacyLevel: 2 });

    const written = JSON.parse(write({ ...answer, secret: 'not for the client' })) as Record<string, unknown>;

    expect(written).toEqual(answer);
    expect(written).not.toHaveProperty('secret');
  });

  it('given a field that is undefined, when written, then it is left out as JSON.stringify leaves it out', () => {
    const write = jsonWriterFor(z.strictObject({ a: z.string(), b: z.string().optional() }));

    expect(write({ a: 'x', b: undefined })).toBe(JSON.stringify({ a: 'x', b: undefined }));
  });

  it.each([
    ['a union', z.strictObject({ value: z.union([z.string(), z.number()]) }), { value: 3 }],
    ['an open record', z.strictObject({ counts: z.record(z.string(), z.number()) }), { counts: { a: 1, b: 2 } }],
    ['an unknown value', z.strictObject({ data: z.unknown() }), { data: { nested: [1, 'two'] } }],
  ])('given a schema with %s, when written, then it is written as JSON.stringify writes it', (_kind, schema, value) => {
    expect(jsonWriterFor(schema)(value)).toBe(JSON.stringify(value));
  });
});
