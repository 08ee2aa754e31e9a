/**
 * Tags as stored: trimmed, empties dropped, duplicates dropped case-insensitively (the first
 * spelling wins), because the tag filter matches case-insensitively and "AI" and "ai" would
 * otherwise be one filter hit shown twice.
 */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLowerCase();
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(tag);
  }
  return kept;
}
