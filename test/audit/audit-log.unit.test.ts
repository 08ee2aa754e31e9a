import {
  assertAuditor,
  auditRead,
  auditStreamId,
  decodeCursor,
  encodeCursor,
  matchesFilter,
} from '../../src/audit/audit-log';
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
    expect(decodeCursor(encodeCursor(1234567890123456789n))).toBe(1234567890123456789n);
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
    [{ type: 'ResourceUnshared' }, false],
    [{ type: 'ResourceShared' }, true],
    [{ stream: 'resource-1' }, true],
    [{ userId: 3 }, true],
    [{ credential: 'apiKey' as const }, true],
    [{ apiKeyId: 7 }, true],
    [{ from: Date.parse('2025-03-01T10:00:00.000Z') }, true],
    [{ to: Date.parse('2025-03-01T10:00:00.000Z') }, true],
    [{ from: Date.parse('2025-03-01T09:00:00.000Z'), to: Date.parse('2025-03-01T09:59:59.999Z') }, false],
    [{ from: Date.parse('2025-03-01T10:00:00.001Z'), to: Date.parse('2025-03-01T11:00:00.000Z') }, false],
    [{ from: Date.parse('2025-03-01T10:00:00.000Z'), to: Date.parse('2025-03-01T10:00:00.000Z') }, true],
    [{ from: Date.parse('2025-03-01T10:00:00.001Z') }, false],
    [{ to: Date.parse('2025-03-01T09:59:59.999Z') }, false],
  ])('filter %j keeps the event: %s', (filter, kept) => {
    expect(matchesFilter(event, filter)).toBe(kept);
  });

  it('given a cursor it did not issue and no field named, then the refusal names the after parameter', () => {
    expect(() => decodeCursor('nope')).toThrow(
      expect.objectContaining({ kind: 'validation', errors: [expect.objectContaining({ field: 'after' })] }),
    );
  });

  it('given a user without the auditor role, or an impersonation of an auditor, then forbidden; an auditor with a session or a key may read', () => {
    const session = { userId: 11, credential: 'session' as const };
    const key = { userId: 11, credential: 'apiKey' as const, apiKeyId: 4 };
    const impersonation = { ...session, impersonatorId: 8 };
    expect(() => assertAuditor({ platformRoles: [], actor: session })).toThrow(
      expect.objectContaining({ kind: 'forbidden' }),
    );
    expect(() => assertAuditor({ platformRoles: ['auditor'], actor: impersonation })).toThrow(
      expect.objectContaining({ kind: 'forbidden', message: expect.stringContaining('impersonation') }),
    );
    expect(() => assertAuditor({ platformRoles: ['auditor'], actor: session })).not.toThrow();
    expect(() => assertAuditor({ platformRoles: ['auditor'], actor: key })).not.toThrow();
  });

  it.each([
    ['a longer position', `v1:${'9'.repeat(20)}`],
    ['no position', 'v1:'],
    ['another version', 'v2:12'],
    ['text before', 'xv1:12'],
    ['text after', 'v1:12x'],
    ['a negative position', 'v1:-12'],
  ])('given a cursor with %s, then it is a validation error', (_what, text) => {
    expect(() => decodeCursor(Buffer.from(text, 'utf8').toString('base64url'))).toThrow(
      expect.objectContaining({ kind: 'validation' }),
    );
  });

  it('given the largest position a store keeps (2^63 - 1) and the smallest, then they decode; one past it is refused', () => {
    const largest = 2n ** 63n - 1n;
    expect(decodeCursor(encodeCursor(largest))).toBe(largest);
    expect(decodeCursor(encodeCursor(0n))).toBe(0n);
    expect(() => decodeCursor(encodeCursor(largest + 1n), 'cursor')).toThrow(
      expect.objectContaining({ kind: 'validation', errors: [expect.objectContaining({ field: 'cursor' })] }),
    );
  });

  it('given an event whose time does not parse, then a time filter drops it and others keep it', () => {
    const undated = { ...event, metadata: { ...event.metadata, at: 'yesterday' } };
    expect(matchesFilter(undated, { from: 0 })).toBe(false);
    expect(matchesFilter(undated, { to: Date.parse('2100-01-01T00:00:00.000Z') })).toBe(false);
    expect(matchesFilter(undated, { userId: 3 })).toBe(true);
  });

  it('given an auditor reading, then the read is recorded in their own stream as AuditRead', () => {
    expect(auditStreamId(3)).toBe('audit-3');
    expect(auditRead('GET /api/audit/events', { stream: 'resource-1' }, event.metadata)).toEqual({
      type: 'AuditRead',
      data: { route: 'GET /api/audit/events', params: { stream: 'resource-1' } },
      metadata: event.metadata,
    });
  });
});
