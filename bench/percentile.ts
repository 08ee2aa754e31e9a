/** The value at quantile `q` (0 to 1) of ascending `sorted` values, nearest rank; 0 when there are none. */
export const percentile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
