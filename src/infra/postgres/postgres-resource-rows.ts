import type { Resource } from '../../resources/resource';
import type { ResourceViewRecord, StoredResource } from '../../resources/resource-view-store';
import type { PostgresReadDb } from './postgres-read-db';

/** Rows per multi-row insert of views: each takes `viewColumns` parameters of the 65,535 a statement binds. */
const VIEW_ROWS_PER_STATEMENT = 1000;

/** The resources read model's table names and a view's row, as PostgresResourceViewStore writes them. */
export type ResourceTables = {
  readonly resources: string;
  readonly projectLinks: string;
  readonly views: string;
  readonly viewColumns: number;
  readonly viewRow: (resourceId: number, view: ResourceViewRecord) => unknown[];
};

/** A resource's row: its project (the live one's, for a tombstone), its position, its JSON (null: deleted). */
export type ResourceRow = { readonly projectId: number; readonly position: bigint; readonly text: string | null };

/** A row as the store answers it: the resource parsed afresh (each reader gets its own), or null for a tombstone. */
export const storedResourceOf = (row: Pick<ResourceRow, 'position' | 'text'>): StoredResource => ({
  resource: row.text === null ? null : (JSON.parse(row.text) as Resource),
  position: row.position,
});

/** A view a resource is in: its key and its project, which name the view's scope in the change feed. */
export type StoredView = { readonly viewKey: string; readonly projectId: number };

/**
 * A resource's views `before` replaced by `views` (one per key, the last): the views after, and
 * what it writes into `dirty` (each key's row; null: removed).
 */
export function replaceViewsIn(
  tables: ResourceTables,
  resourceId: number,
  before: ReadonlyMap<string, StoredView>,
  views: readonly ResourceViewRecord[],
  dirty: Map<string, unknown[] | null>,
): Map<string, StoredView> {
  const after = new Map<string, StoredView>();
  for (const key of before.keys()) dirty.set(key, null);
  for (const view of new Map(views.map((v) => [v.viewKey, v])).values()) {
    after.set(view.viewKey, { viewKey: view.viewKey, projectId: view.projectId });
    dirty.set(view.viewKey, tables.viewRow(resourceId, view));
  }
  return after;
}

/**
 * The statements that send what a batch held in the process (ResourceMirror, ResourceBatch) in a
 * few multi-row writes, on the batch's connection (`read.write` inside it: sent without waiting).
 */

/** Resource rows, each written unless the table holds it at a later position. */
export async function writeResourceRows(
  read: PostgresReadDb,
  tables: ResourceTables,
  rows: readonly (readonly [number, ResourceRow])[],
): Promise<void> {
  if (rows.length === 0) return;
  await read.write(
    `insert into ${tables.resources} as r (resource_id, project_id, position, resource)
     select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])
     on conflict (resource_id) do update set
       project_id = excluded.project_id, position = excluded.position, resource = excluded.resource
     where r.position <= excluded.position`,
    [
      rows.map(([id]) => id),
      rows.map(([, row]) => row.projectId),
      rows.map(([, row]) => row.position.toString()),
      rows.map(([, row]) => row.text),
    ],
  );
}

/** Views written (rows made by `tables.viewRow`) and views removed, by resource and view key. */
export async function writeViewRows(
  read: PostgresReadDb,
  tables: ResourceTables,
  upserts: readonly unknown[][],
  deleted: readonly (readonly [number, string])[],
): Promise<void> {
  if (deleted.length > 0)
    await read.write(
      `delete from ${tables.views} where (resource_id, view_key) in
         (select * from unnest($1::bigint[], $2::text[]))`,
      [deleted.map(([id]) => id), deleted.map(([, key]) => key)],
    );
  const columns = tables.viewColumns;
  for (let from = 0; from < upserts.length; from += VIEW_ROWS_PER_STATEMENT) {
    const chunk = upserts.slice(from, from + VIEW_ROWS_PER_STATEMENT);
    const tuples = chunk.map(
      (_, i) => `(${Array.from({ length: columns }, (__, c) => `$${i * columns + c + 1}`).join(', ')})`,
    );
    await read.write(
      `insert into ${tables.views}
         (resource_id, view_key, project_id, paragraph, post_date, audience_key, search, tags, doc)
       values ${tuples.join(', ')}
       on conflict (resource_id, view_key) do update set
         project_id = excluded.project_id, paragraph = excluded.paragraph, post_date = excluded.post_date,
         audience_key = excluded.audience_key, search = excluded.search, tags = excluded.tags, doc = excluded.doc`,
      chunk.flat(),
    );
  }
}
