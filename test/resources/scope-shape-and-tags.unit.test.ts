import { DomainError } from '../../src/domain/errors';
import type { ScopeFields, ScopeShape } from '../../src/resources/scope-shape';
import { scopeShapeOf } from '../../src/resources/scope-shape';
import { normalizeTags } from '../../src/resources/tags';

describe('scopeShapeOf (docs/api.md "Scope shapes")', () => {
  it.each<[string, ScopeFields, ScopeShape]>([
    ['a paragraph alone', { paragraphId: 5 }, { kind: 'paragraph', paragraphId: 5 }],
    [
      'a paragraph, whatever else is sent',
      { paragraphId: 5, projectId: 7, communityProjectId: 100, communityId: 10 },
      { kind: 'paragraph', paragraphId: 5 },
    ],
    ['a community project alone', { communityProjectId: 100 }, { kind: 'communityProject', communityProjectId: 100 }],
    [
      'a community project, the others sent as 0 or null',
      { communityProjectId: 100, projectId: 0, communityId: null, paragraphId: 0 },
      { kind: 'communityProject', communityProjectId: 100 },
    ],
    [
      'a project in a community',
      { projectId: 7, communityId: 10 },
      { kind: 'projectInCommunity', projectId: 7, communityId: 10 },
    ],
    [
      'a project in a community, the community project sent as 0',
      { projectId: 7, communityId: 10, communityProjectId: 0 },
      { kind: 'projectInCommunity', projectId: 7, communityId: 10 },
    ],
    [
      'a project, the community fields sent as 0',
      { projectId: 7, communityProjectId: 0, communityId: 0 },
      { kind: 'project', projectId: 7 },
    ],
    [
      'a project, the community fields sent as 0 and the paragraph as null',
      { projectId: 7, communityProjectId: 0, communityId: 0, paragraphId: null },
      { kind: 'project', projectId: 7 },
    ],
  ])('given %s, then that shape', (_what, fields, shape) => {
    expect(scopeShapeOf(fields)).toEqual(shape);
  });

  it.each<[string, ScopeFields]>([
    ['nothing', {}],
    ['everything as 0', { projectId: 0, communityProjectId: 0, communityId: 0, paragraphId: 0 }],
    ['a project alone (the community forgotten)', { projectId: 7 }],
    ['a project with the community project 0 but the community missing', { projectId: 7, communityProjectId: 0 }],
    ['a project with the community 0 but the community project missing', { projectId: 7, communityId: 0 }],
    ['a project with the community fields null', { projectId: 7, communityProjectId: null, communityId: null }],
    ['a community alone', { communityId: 10 }],
    ['a community project with its project', { communityProjectId: 100, projectId: 7 }],
    ['a community project with a community', { communityProjectId: 100, communityId: 10 }],
    ['all three', { communityProjectId: 100, projectId: 7, communityId: 10 }],
  ])('given %s, then it is a validation error on communityProjectId', (_what, fields) => {
    expect(() => scopeShapeOf(fields)).toThrow(DomainError);
    expect(() => scopeShapeOf(fields)).toThrow(
      expect.objectContaining({
        kind: 'validation',
        errors: [expect.objectContaining({ field: 'communityProjectId' })],
      }),
    );
  });
});

describe('normalizeTags', () => {
  it.each<[string, string[], string[]]>([
    ['none', [], []],
    ['tags as they are', ['water', 'pump'], ['water', 'pump']],
    ['white space around', ['  water ', '\tpump\n'], ['water', 'pump']],
    ['empty and blank tags', ['', '   ', 'water'], ['water']],
    ['duplicates in any case, the first spelling kept', ['AI', 'ai', 'Ai ', 'water', 'WATER'], ['AI', 'water']],
    ['tags that differ inside', ['solar panel', 'solar  panel'], ['solar panel', 'solar  panel']],
    // Folded as the tag filter folds (lower case), where ß and ss stay apart (in upper case both are SS).
    ['tags that differ by ß and ss', ['Straße', 'STRASSE', 'strasse'], ['Straße', 'STRASSE']],
  ])('given %s, then they are stored as expected', (_what, tags, stored) => {
    expect(normalizeTags(tags)).toEqual(stored);
  });
});
