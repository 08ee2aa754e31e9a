import { assertAuditor, decodeCursor, encodeCursor, matchesFilter } from '../../src/audit/audit-log';
import { DomainError } from '../../src/domain/errors';

const event = {
  streamId: 'resource-1',
  type: 'ResourceShared',
  metadata: {
    actor: { userId: 3, credential: 'apiKey' as const, apiKeyId: 7 },
    correlationId: 'c',
    at: '2025-03-01T10:00:00.000Z',
  },
};

describe('audit log rules', () => {
  it('given a cursor it issued, then it decodes to the same position; anything else is a validation error on the field', () => {
    expect(decodeCursor(encodeCursor(12345678901234567890n))).toBe(12345678901234567890n);
    expect(() => decodeCursor('MTIz')).toThrow(DomainError);
    const error = (() => {
      try {
        return decodeCursor('nope', '--after');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).errors.map((e) => e.field)).toEqual(['--after']);
  });

  it.each([
    [{}, true],
    [{ stream: 'resource-1', type: 'ResourceShared', userId: 3, credential: 'apiKey' as const, apiKeyId: 7 }, true],
    [{ stream: 'resource-2' }, false],
    [{ userId: 4 }, false],
    [{ credential: 'session' as const }, false],
    [{ apiKeyId: 8 }, false],
    [{ from: Date.parse('2025-03-01T10:00:00.000Z'), to: Date.parse('2025-03-01T10:00:00.000Z') }, true],
    [{ from: Date.parse('2025-03-01T10:00:00.001Z') }, false],
    [{ to: Date.parse('2025-03-01T09:59:59.999Z') }, false],
  ])('filter %j keeps the event: %s', (filter, kept) => {
    expect(matchesFilter(event, filter)).toBe(kept);
  });

  it('given a user without the auditor role, then forbidden', () => {
    expect(() => assertAuditor({ platformRoles: [] })).toThrow(expect.objectContaining({ kind: 'forbidden' }));
    expect(() => assertAuditor({ platformRoles: ['auditor'] })).not.toThrow();
  });
});
