import type { Actor, EventMetadata } from '../domain/event';
import type { PrivacyLevel } from '../resources/access/privacy-policy';
import type { PrivacyBlock, Resource, ResourceScope, ResourceState } from '../resources/resource';
import { evolve, initialState } from '../resources/resource-evolve';
import { isResourceEvent } from '../resources/resource-events';
import type { EditableField } from '../resources/resource-fields';
import { EDITABLE_FIELDS } from '../resources/resource-fields';

/**
 * A resource's history as readable steps. One step is one command: the consecutive events of
 * the stream that share a correlation id (a privacy change is several events: revoke the
 * circles, change the level). What a step changed is found by diffing the state before it and
 * after it, both folded with the domain's own `evolve`, so the history says what the service
 * believed, not what an event's name suggests.
 */

/** `owner` is the resource's own privacy; a number is the share into that community. */
export type BlockName = 'owner' | { readonly share: number };

export type Change =
  | {
      readonly kind: 'created';
      readonly scope: ResourceScope;
      readonly paragraphId: number | null;
      readonly name: string;
      readonly resourceUrl: string;
      readonly privacyLevel: PrivacyLevel;
      readonly createdByMentor: boolean;
    }
  // The field is one of the resource's editable fields (src/resources/resource-fields.ts).
  | { readonly kind: 'edited'; readonly field: EditableField; readonly from: unknown; readonly to: unknown }
  | { readonly kind: 'levelChanged'; readonly block: BlockName; readonly from: PrivacyLevel; readonly to: PrivacyLevel }
  | { readonly kind: 'circlesGranted'; readonly block: BlockName; readonly circleIds: readonly number[] }
  | { readonly kind: 'circlesRevoked'; readonly block: BlockName; readonly circleIds: readonly number[] }
  | {
      readonly kind: 'shareAdded';
      readonly communityId: number;
      readonly privacyLevel: PrivacyLevel;
      /** Why, when the sharer said (ResourceShared version 2). */
      readonly reason?: string;
    }
  | { readonly kind: 'shareRemoved'; readonly communityId: number; readonly privacyLevel: PrivacyLevel }
  | { readonly kind: 'deleted' };

export type HistoryStep = {
  readonly at: string;
  readonly actor: Actor;
  readonly correlationId: string;
  /** Stream revisions of the step's first and last event. */
  readonly fromRevision: bigint;
  readonly toRevision: bigint;
  readonly eventTypes: readonly string[];
  readonly changes: readonly Change[];
};

export type StreamEvent = {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  readonly revision: bigint;
};

export function resourceHistory(events: readonly StreamEvent[]): HistoryStep[] {
  const steps: HistoryStep[] = [];
  let state: ResourceState = initialState;
  let i = 0;
  while (i < events.length) {
    const first = events[i] as StreamEvent;
    const before = state;
    const stepStart = i;
    const types: string[] = [];
    let last = first;
    while (i < events.length && sameCommand(events[i] as StreamEvent, first)) {
      last = events[i] as StreamEvent;
      if (isResourceEvent(last)) state = evolve(state, last);
      types.push(last.type);
      i++;
    }
    steps.push({
      at: first.metadata.at,
      actor: first.metadata.actor,
      correlationId: first.metadata.correlationId,
      fromRevision: first.revision,
      toRevision: last.revision,
      eventTypes: types,
      changes: withShareReasons(diffStates(before, state), events.slice(stepStart, i)),
    });
  }
  return steps;
}

const sameCommand = (a: StreamEvent, b: StreamEvent): boolean =>
  a.metadata.correlationId === b.metadata.correlationId && a.metadata.actor.userId === b.metadata.actor.userId;

/** What changed between two states of one resource, in a stable order. */
export function diffStates(before: ResourceState, after: ResourceState): Change[] {
  // One case per state a resource can be in: a new state is a compile error here until the audit
  // says what reaching it means.
  switch (after.status) {
    case 'initial':
      return [];
    case 'deleted':
      return before.status === 'deleted' ? [] : [{ kind: 'deleted' }];
    case 'active':
      return activeChanges(before, after.resource);
    default: {
      const unexpected: never = after;
      throw new Error(`unknown resource state ${JSON.stringify(unexpected)}`);
    }
  }
}

function activeChanges(before: ResourceState, next: Resource): Change[] {
  if (before.status !== 'active') {
    const created: Change = {
      kind: 'created',
      scope: next.scope,
      paragraphId: next.paragraphId,
      name: next.name,
      resourceUrl: next.resourceUrl,
      privacyLevel: next.owner.privacyLevel,
      createdByMentor: next.createdByMentor,
    };
    // Circles and shares granted in the same command read as changes from nothing.
    const empty: Resource = { ...next, owner: { ...next.owner, circles: [] }, shares: [] };
    return [created, ...privacyChanges(empty, next)];
  }
  return [...fieldChanges(before.resource, next), ...privacyChanges(before.resource, next)];
}

function fieldChanges(prev: Resource, next: Resource): Change[] {
  const changes: Change[] = [];
  for (const field of EDITABLE_FIELDS) {
    const from = prev[field];
    const to = next[field];
    const same = Array.isArray(from) && Array.isArray(to) ? from.join('\u0000') === to.join('\u0000') : from === to;
    if (!same) changes.push({ kind: 'edited', field, from, to });
  }
  return changes;
}

function privacyChanges(prev: Resource, next: Resource): Change[] {
  const changes = blockChanges('owner', prev.owner, next.owner);
  const prevShares = new Map(prev.shares.map((s) => [s.communityId, s]));
  const nextShares = new Map(next.shares.map((s) => [s.communityId, s]));
  for (const share of next.shares) {
    const old = prevShares.get(share.communityId);
    if (!old) {
      changes.push({ kind: 'shareAdded', communityId: share.communityId, privacyLevel: share.privacyLevel });
      changes.push(...blockChanges({ share: share.communityId }, { ...share, circles: [] }, share));
    } else {
      changes.push(...blockChanges({ share: share.communityId }, old, share));
    }
  }
  for (const old of prev.shares) {
    if (!nextShares.has(old.communityId)) {
      changes.push({ kind: 'shareRemoved', communityId: old.communityId, privacyLevel: old.privacyLevel });
    }
  }
  return changes;
}

function blockChanges(block: BlockName, prev: PrivacyBlock, next: PrivacyBlock): Change[] {
  const changes: Change[] = [];
  const prevIds = new Set(prev.circles.map((c) => c.circleId));
  const nextIds = new Set(next.circles.map((c) => c.circleId));
  const revoked = [...prevIds].filter((id) => !nextIds.has(id)).sort((a, b) => a - b);
  const granted = [...nextIds].filter((id) => !prevIds.has(id)).sort((a, b) => a - b);
  // Revocations first: moving off Custom revokes the circles before the level changes.
  if (revoked.length > 0) changes.push({ kind: 'circlesRevoked', block, circleIds: revoked });
  if (prev.privacyLevel !== next.privacyLevel) {
    changes.push({ kind: 'levelChanged', block, from: prev.privacyLevel, to: next.privacyLevel });
  }
  if (granted.length > 0) changes.push({ kind: 'circlesGranted', block, circleIds: granted });
  return changes;
}

const reasonText = (reason: string | undefined): string => (reason ? `: ${reason}` : '');

const blockText = (block: BlockName): string =>
  block === 'owner' ? 'own privacy' : `share into community ${block.share}`;

/** One line a person reads, for tables and the `description` of each change. */
export function describeChange(change: Change): string {
  switch (change.kind) {
    case 'created': {
      const where =
        change.scope.kind === 'project'
          ? `project ${change.scope.projectId}`
          : `project ${change.scope.projectId} in community ${change.scope.communityId}`;
      return `created "${change.name}" (${change.resourceUrl}) in ${where} at level ${change.privacyLevel}`;
    }
    case 'edited':
      return `${change.field} changed from ${JSON.stringify(change.from)} to ${JSON.stringify(change.to)}`;
    case 'levelChanged':
      return `${blockText(change.block)}: level ${change.from} -> ${change.to}`;
    case 'circlesGranted':
      return `${blockText(change.block)}: circles granted ${change.circleIds.join(', ')}`;
    case 'circlesRevoked':
      return `${blockText(change.block)}: circles revoked ${change.circleIds.join(', ')}`;
    case 'shareAdded':
      return `shared into community ${change.communityId} at level ${change.privacyLevel}${reasonText(change.reason)}`;
    case 'shareRemoved':
      return `share into community ${change.communityId} removed (was level ${change.privacyLevel})`;
    case 'deleted':
      return 'deleted';
    default: {
      const _exhaustive: never = change;
      return _exhaustive;
    }
  }
}

type StepEvent = { readonly type: string; readonly data: unknown };

/**
 * A step's new shares with the reason their ResourceShared recorded (version 2), when
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
