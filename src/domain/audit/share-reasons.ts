import type { Change } from './resource-history';

type StepEvent = { readonly type: string; readonly data: unknown };

/**
 * A step's new shares with the reason their ResourceShared recorded (version 2, issue 27), when
 * the sharer gave one; a share without a reason reads as before.
 */
export function withShareReasons(changes: Change[], stepEvents: readonly StepEvent[]): Change[] {
  const reasons = new Map<number, string>();
  for (const event of stepEvents) {
    if (event.type !== 'ResourceShared') continue;
    const { communityId, reason } = event.data as { readonly communityId: number; readonly reason?: string | null };
    if (typeof reason === 'string') reasons.set(communityId, reason);
  }
  if (reasons.size === 0) return changes;
  return changes.map((change) => {
    const reason = change.kind === 'shareAdded' ? reasons.get(change.communityId) : undefined;
    return reason === undefined ? change : { ...change, reason };
  });
}
