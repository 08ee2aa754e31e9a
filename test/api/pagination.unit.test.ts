import { z } from 'zod';
import { DEFAULT_TAKE, MAX_TAKE, pageRequestOf, paginated } from '../../src/api/pagination';

describe('pageRequestOf', () => {
  it('given nothing, then skip 0 and the default take', () => {
    expect(pageRequestOf({})).toEqual({ skip: 0, take: DEFAULT_TAKE });
    expect(DEFAULT_TAKE).toBe(50);
  });

  it('given take and skip, then both are used', () => {
    expect(pageRequestOf({ skip: 5, take: 10 })).toEqual({ skip: 5, take: 10 });
  });

  it('given only pageSize, then it is the take', () => {
    expect(pageRequestOf({ pageSize: 7 })).toEqual({ skip: 0, take: 7 });
  });

  it('given take and an equal pageSize, then that take', () => {
    expect(pageRequestOf({ take: 7, pageSize: 7 })).toEqual({ skip: 0, take: 7 });
  });

  it('given take 0, then take 0 (a count-only page), not the default', () => {
    expect(pageRequestOf({ take: 0 })).toEqual({ skip: 0, take: 0 });
  });
});

describe('paginated(shape)', () => {
  const schema = paginated({ orderBy: z.union([z.literal(0), z.literal(1)]).optional() });
  const fieldsOf = (input: unknown) => {
    const result = schema.safeParse(input);
    return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
  };

  it('given an empty body, then it parses with every field absent', () => {
    expect(schema.parse({})).toEqual({});
  });

  it('given the endpoint fields and the pagination fields, then it keeps both', () => {
    expect(schema.parse({ orderBy: 1, skip: 5, take: 10 })).toEqual({ orderBy: 1, skip: 5, take: 10 });
  });

  it.each([0, 1, 50, MAX_TAKE])('given take %p, then it is accepted', (take) => {
    expect(fieldsOf({ take })).toEqual([]);
    expect(fieldsOf({ pageSize: take })).toEqual([]);
  });

  it.each([MAX_TAKE + 1, -1, 1.5, '10', null])('given take %p, then take is refused', (take) => {
    expect(fieldsOf({ take })).toEqual(['take']);
  });

  it.each([MAX_TAKE + 1, -1, 1.5])('given pageSize %p, then pageSize is refused', (pageSize) => {
    expect(fieldsOf({ pageSize })).toEqual(['pageSize']);
  });

  it.each([-1, 0.5, '0'])('given skip %p, then skip is refused', (skip) => {
    expect(fieldsOf({ skip })).toEqual(['skip']);
  });

  it('given take and pageSize that disagree, then the refinement names pageSize', () => {
    expect(fieldsOf({ take: 10, pageSize: 20 })).toEqual(['pageSize']);
  });

  it('given take and pageSize that agree, then the refinement passes', () => {
    expect(schema.parse({ take: 10, pageSize: 10 })).toEqual({ take: 10, pageSize: 10 });
  });

  it('given a field of the endpoint shape that is invalid, then that field is named', () => {
    expect(fieldsOf({ orderBy: 2 })).toEqual(['orderBy']);
  });

  it('given a body that is not an object, then the whole body is refused', () => {
    expect(fieldsOf([1])).toEqual(['']);
  });
});
