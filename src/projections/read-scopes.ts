/**
 * The parts of the read models that remembered answers depend on, by name. A store says which
 * scope each of its writes changes; a remembered answer names the scopes it was read from, and
 * stands until one of them changes (the SQLite and PostgreSQL adapters' change feeds carry the
 * names between processes).
 */
export const readScope = {
  /** People, communities, projects, circles: every caller's principals and every name. */
  directory: 'directory',
  /** Every document of a document read model that declares no scope of its own (as the API keys'). */
  documents: (readModel: string): string => `doc:${readModel}`,
  /** One resource's state and the list of its views. */
  resource: (resourceId: number): string => `resource:${resourceId}`,
  /** One view of one project's resources (`p:7`, or `c:12` for community 12), and which resources it holds. */
  view: (viewKey: string, projectId: number): string => `view:${viewKey}:${projectId}`,
} as const;

/** The view a view scope names, or null for another scope. */
export function viewOfScope(scope: string): { viewKey: string; projectId: number } | null {
  const match = /^view:([pc]:\d+):(\d+)$/.exec(scope);
  return match ? { viewKey: match[1] as string, projectId: Number(match[2]) } : null;
}
