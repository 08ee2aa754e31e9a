import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVACY_LEVELS, docsWhoSees, isPrivacyLevel } from '../../src/resources/access/privacy-policy';
import { privacyLevelSchema } from '../../src/resources/privacy-level-schema';
import { RESOURCE_EVENT_SCHEMAS } from '../../src/resources/resource-event-schemas';

/**
 * The privacy levels' table is the one place a level is stated: what derives from it must agree
 * with it, and docs/api.md's table of levels must say what it says.
 */

const levels = PRIVACY_LEVELS.map((row) => row.level);
/** Every integer from one below the lowest level to one above the highest, and some that are no integer. */
const around = [
  ...Array.from({ length: Math.max(...levels) - Math.min(...levels) + 3 }, (_, i) => Math.min(...levels) - 1 + i),
  1.5,
  NaN,
];

describe('the privacy levels table', () => {
  it('given docs/api.md, then its table of levels has one row per level, in order, as the table states it', () => {
    const api = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
    const section = api.slice(api.indexOf('### Privacy levels'));
    const rows = section
      .split('\n')
      .filter((line) => /^\| \d+ \|/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );

    expect(rows).toEqual(PRIVACY_LEVELS.map((row) => [String(row.level), row.name, docsWhoSees(row)]));
  });

  it.each(around)('given %p, then the stored level schema accepts it exactly when it is a level', (value) => {
    expect(privacyLevelSchema.safeParse(value).success).toBe(isPrivacyLevel(value));
  });

  it.each(levels)('given level %p, then every event that records a level accepts it', (level) => {
    const events = {
      ResourceShared: { resourceId: 1, communityId: 2, privacyLevel: level, reason: null },
      SharePrivacyChanged: { resourceId: 1, communityId: 2, privacyLevel: level },
      OwnerPrivacyChanged: { resourceId: 1, privacyLevel: level, lastUpdated: '2025-03-01T10:00:00.000Z' },
    } as const;

    for (const [type, data] of Object.entries(events)) {
      const result = RESOURCE_EVENT_SCHEMAS[type as keyof typeof events].safeParse(data);
      expect({ type, success: result.success }).toEqual({ type, success: true });
    }
  });
});
