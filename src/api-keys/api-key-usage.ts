import type { Cache } from '../ports/cache';

/**
 * How much each key is used (docs/api.md "Scopes and quotas"): one counter per key and clock hour
 * in the cache, so every process sharing Redis counts into the same buckets. A bucket is kept a
 * little over a day, the longest window asked of it.
 */
const HOUR_MS = 3_600_000;
const BUCKETS_PER_DAY = 24;
const KEPT_SECONDS = (BUCKETS_PER_DAY + 2) * 3600;

export type KeyUsage = { readonly lastHour: number; readonly lastDay: number };

const bucketOf = (id: number, hour: number): string => `apikey-usage:${id}:${hour}`;

/** Counts one request made with key `id` at `nowMs`. */
export async function countUse(cache: Pick<Cache, 'increment'>, id: number, nowMs: number): Promise<void> {
  await cache.increment(bucketOf(id, Math.floor(nowMs / HOUR_MS)), KEPT_SECONDS);
}

/**
 * The requests of the last hour and the last 24 hours from hourly counts, newest first
 * (`counts[0]` the hour under way, `counts[24]` the one a day before it). A window reaches into
 * its oldest bucket by the part of that hour not yet elapsed in the current one: that bucket
 * counts in that proportion, since when in the hour its requests came is not kept.
 */
export function usageFromHourlyCounts(counts: readonly number[], elapsedOfHour: number): KeyUsage {
  const at = (i: number): number => counts[i] ?? 0;
  const tail = (i: number): number => Math.round(at(i) * (1 - elapsedOfHour));
  let day = 0;
  for (let i = 0; i < BUCKETS_PER_DAY; i++) day += at(i);
  return { lastHour: at(0) + tail(1), lastDay: day + tail(BUCKETS_PER_DAY) };
}

/** The usage of each key of `ids` at `nowMs`, by id; one read of the cache for all of them. */
export async function usageOf(
  cache: Pick<Cache, 'counts'>,
  ids: readonly number[],
  nowMs: number,
): Promise<ReadonlyMap<number, KeyUsage>> {
  const hour = Math.floor(nowMs / HOUR_MS);
  const elapsed = (nowMs - hour * HOUR_MS) / HOUR_MS;
  const span = BUCKETS_PER_DAY + 1;
  const keys = ids.flatMap((id) => Array.from({ length: span }, (_, back) => bucketOf(id, hour - back)));
  const counts = await cache.counts(keys);
  return new Map(ids.map((id, i) => [id, usageFromHourlyCounts(counts.slice(i * span, (i + 1) * span), elapsed)]));
}
