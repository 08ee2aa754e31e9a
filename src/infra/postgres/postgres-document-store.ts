import { canonicalDigest } from '../../projections/canonical-digest';
import {
  compareCodePoints,
  indexOf,
  keysetAlternatives,
  type CollectionDeclaration,
  type Document,
  type DocumentId,
  type DocumentStore,
  type IndexDeclaration,
  type IndexQuery,
  type Scalar,
} from '../../projections/document-store';
import type { PageResponse } from '../../projections/paging';
import type { ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { postgresProjectionStore, type HeldWrites, type PostgresReadDb } from './postgres-read-db';

/** A field name is spliced into SQL (a JSON path, an index expression): only plain identifiers. */
function field(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a document field name: ${name}`);
  return `(doc->'${name}')`;
}

/**
 * The order of one field, as two keys: strings by code point (collation "C", whatever the
 * database's default, as MongoDB and SQLite compare them), then the JSON value itself (numbers by
 * value). Missing values first when ascending, as on the other databases.
 */
function orderKeys(name: string, direction: 1 | -1): string[] {
  const value = field(name);
  const nulls = direction === 1 ? 'asc nulls first' : 'desc nulls last';
  return [
    `(case when jsonb_typeof(${value}) = 'string' then (${value} #>> '{}') collate "C" end) ${nulls}`,
    `${value} ${nulls}`,
  ];
}

export const documentTable = (collection: string): string => `doc_${collection}`;

/** The key of a document id: 1 and "1" are different documents, as on MongoDB. */
const key = (id: DocumentId): string => JSON.stringify(id);

function indexDdl(table: string, name: string, index: IndexDeclaration): string {
  const columns = [
    ...index.equal.map((f) => field(f)),
    ...index.order.flatMap(([f, direction]) => orderKeys(f, direction)),
  ];
  return `create index if not exists ${table}_${name} on ${table} (${columns.join(', ')})`;
}

/** A stored document as the mirror holds it: its JSON text (parsed afresh on each load, as a row is), its position. */
type Held = { readonly text: string | null; readonly position: bigint };

const parse = (text: string | null): Document | null => (text === null ? null : (JSON.parse(text) as Document));

/** How many documents a mirror holds at most: past it, it is written out and dropped. */
const MIRROR_MAX_DOCUMENTS = 250_000;

/**
 * Every document read model on PostgreSQL: a table per collection holding the id, the document as
 * jsonb and the position of the event that wrote it, with an expression index per declared index,
 * so a page is read along the index in the order it declares. Writes are guarded by position.
 */
export class PostgresDocumentStore implements DocumentStore {
  readonly projectionStore: ProjectionStore;
  /**
   * While a new generation is bulk-loaded: every document of the read model, by collection and
   * key, read here instead of the database. It holds every row from the reset that starts the
   * load, the builder being the only writer of a generation nobody reads.
   */
  private mirror: { readonly documents: Map<string, Map<string, Held>>; size: number } | undefined;
  /**
   * The saves of the batch being committed, by collection and key, sent as it commits with one
   * statement per collection (PostgresReadDb.holdWrites) instead of one round trip per document:
   * a directory batch of 500 events is 500 documents.
   */
  private readonly dirty = new Map<string, Map<string, Held>>();
  private readonly held: HeldWrites = {
    flush: () => this.flush(),
    // The mirror holds what the transaction rolled back: the database is read again from here.
    discard: () => {
      this.mirror = undefined;
      this.dirty.clear();
    },
  };

  /** Moves whenever a document of the read model changes, here or in another process (as of the feed's last look). */
  readonly version = (): string | null => this.read.version(this.scope);

  /** `scope`: the read scope each write that changes a document touches in the change feed (scopeOf). */
  private constructor(
    private readonly read: PostgresReadDb,
    private readonly collections: readonly CollectionDeclaration[],
    private readonly scope: string,
  ) {
    const tables = collections.map((c) => documentTable(c.name));
    const store = postgresProjectionStore(read, tables);
    this.projectionStore = {
      ...store,
      digest: () => this.digest(tables),
      reset: async (projection) => {
        this.mirror = undefined;
        await store.reset(projection);
        if (read.bulkLoading) this.mirror = { documents: new Map(), size: 0 };
      },
    };
  }

  /** The mirror's collection, inside a batch of a bulk load; undefined elsewhere (the committed rows are read). */
  private mirrored(collection: string): Map<string, Held> | undefined {
    if (this.mirror && !this.read.bulkLoading) this.mirror = undefined;
    if (!this.mirror || !this.read.holdWrites(this.held)) return undefined;
    let documents = this.mirror.documents.get(collection);
    if (!documents) this.mirror.documents.set(collection, (documents = new Map()));
    return documents;
  }

  /** A save held until the batch commits; what the batch reads of `collection` again. */
  private pending(collection: string): Map<string, Held> {
    let rows = this.dirty.get(collection);
    if (!rows) this.dirty.set(collection, (rows = new Map()));
    return rows;
  }

  /** The batch's own saves, where it is being committed in this async context. */
  private heldInBatch(collection: string): Map<string, Held> | undefined {
    return this.read.inBatch ? this.dirty.get(collection) : undefined;
  }

  private async flush(): Promise<void> {
    for (const [collection, held] of this.dirty) {
      if (held.size === 0) continue;
      const rows = [...held];
      await this.read.write(
        `insert into ${documentTable(collection)} as t (id, doc, position)
         select id, doc::jsonb, position from unnest($1::text[], $2::text[], $3::bigint[]) as u (id, doc, position)
         on conflict (id) do update set doc = excluded.doc, position = excluded.position
         where excluded.position > t.position`,
        [rows.map(([id]) => id), rows.map(([, row]) => row.text), rows.map(([, row]) => row.position.toString())],
      );
      // Every process's answers read from the read model's scope are forgotten once the write
      // commits. Sent without waiting for its answer, the write counts as a change even where its
      // guard kept a later stored document, which only forgets answers that still held.
      this.read.touch(this.scope);
    }
    this.dirty.clear();
    if (this.mirror && this.mirror.size >= MIRROR_MAX_DOCUMENTS) this.mirror = undefined;
  }

  static async open(
    read: PostgresReadDb,
    collections: readonly CollectionDeclaration[],
    scope: string,
  ): Promise<PostgresDocumentStore> {
    const ddl = collections.flatMap((collection) => {
      const table = documentTable(collection.name);
      return [
        `create table if not exists ${table} (id text primary key, doc jsonb, position bigint not null)`,
        ...Object.entries(collection.indexes).map(([name, index]) => indexDdl(table, name, index)),
      ];
    });
    if (ddl.length > 0) await read.ensure(ddl.join(';\n'));
    return new PostgresDocumentStore(read, collections, scope);
  }

  async load(collection: string, id: DocumentId): Promise<{ document: Document | null; position: bigint } | null> {
    const documents = this.mirrored(collection);
    if (documents) {
      const held = documents.get(key(id));
      if (!held) return null;
      return { document: parse(held.text), position: held.position };
    }
    const saved = this.heldInBatch(collection)?.get(key(id));
    if (saved) return { document: parse(saved.text), position: saved.position };
    const { rows } = await this.read.query<{ doc: Document | null; position: string }>(
      `select doc, position from ${documentTable(collection)} where id = $1`,
      [key(id)],
    );
    const row = rows[0];
    return row ? { document: row.doc, position: BigInt(row.position) } : null;
  }

  async save(collection: string, id: DocumentId, document: Document | null, position: bigint): Promise<void> {
    // Outside a batch, in a transaction of its own, so that the held write is sent as it commits.
    if (!this.read.inBatch) return this.read.transaction(() => this.save(collection, id, document, position));
    const text = document === null ? null : JSON.stringify(document);
    const documents = this.mirrored(collection);
    if (documents && this.mirror) {
      const stored = documents.get(key(id));
      if (stored && stored.position >= position) return;
      if (!stored) this.mirror.size += 1;
      documents.set(key(id), { text, position });
    } else this.read.holdWrites(this.held);
    // The database keeps the later of this and what it holds: the flush's upsert is guarded by position.
    const held = this.pending(collection);
    const earlier = held.get(key(id));
    if (!earlier || earlier.position < position) held.set(key(id), { text, position });
  }

  async get(collection: string, id: DocumentId): Promise<Document | null> {
    return (await this.load(collection, id))?.document ?? null;
  }

  async loadMany(
    collection: string,
    ids: readonly DocumentId[],
  ): Promise<{ id: DocumentId; document: Document | null; position: bigint }[]> {
    if (ids.length === 0) return [];
    const wanted = new Set(ids.map(key));
    const { rows } = await this.read.query<{ id: string; doc: Document | null; position: string }>(
      `select id, doc, position from ${documentTable(collection)} where id = any($1::text[])`,
      [[...wanted]],
    );
    const loaded = new Map(rows.map((row) => [row.id, { document: row.doc, position: BigInt(row.position) }]));
    for (const [id, saved] of this.heldInBatch(collection) ?? [])
      if (wanted.has(id)) loaded.set(id, { document: parse(saved.text), position: saved.position });
    return [...loaded].map(([id, stored]) => ({ id: JSON.parse(id) as DocumentId, ...stored }));
  }

  async page(collection: string, { index: name, equal, page, after }: IndexQuery): Promise<PageResponse<Document>> {
    const index = indexOf(this.collections, collection, name);
    const table = documentTable(collection);
    const where = ['doc is not null', ...index.equal.map((f, i) => `${field(f)} = $${i + 1}::jsonb`)].join(' and ');
    const values = equal.map((value) => JSON.stringify(value));
    const counting = this.read.query<{ n: string }>(`select count(*) as n from ${table} where ${where}`, values);
    const countOf = ({ rows }: { rows: { n: string }[] }) => Number(rows[0]?.n ?? 0);
    if (page.take === 0) return { count: countOf(await counting), list: [] };
    const order = index.order.flatMap(([f, direction]) => orderKeys(f, direction)).join(', ');
    const bound: unknown[] = [...values];
    const bind = (value: unknown): string => {
      bound.push(value);
      return `$${bound.length}`;
    };
    // Strings compare by code point as the order keys sort them; numbers as jsonb numbers.
    const beyond = (f: string, direction: 1 | -1, value: Scalar): string =>
      typeof value === 'string'
        ? `(${field(f)} #>> '{}') collate "C" ${direction === 1 ? '>' : '<'} ${bind(value)}`
        : `${field(f)} ${direction === 1 ? '>' : '<'} ${bind(JSON.stringify(value))}::jsonb`;
    const afterKey = after
      ? ` and (${keysetAlternatives(index, after)
          .map(
            ({ equal: same, beyond: [f, direction, value] }) =>
              `(${[...same.map(([g, v]) => `${field(g)} = ${bind(JSON.stringify(v))}::jsonb`), beyond(f, direction, value)].join(' and ')})`,
          )
          .join(' or ')})`
      : '';
    // Asked with the count, not after it: a page waits for one round trip, not two.
    const [counted, { rows }] = await Promise.all([
      counting,
      this.read.query<{ doc: Document }>(
        `select doc from ${table} where ${where}${afterKey} order by ${order} limit ${bind(page.take)} offset ${bind(page.skip)}`,
        bound,
      ),
    ]);
    return { count: countOf(counted), list: rows.map((row) => row.doc) };
  }

  async find(collection: string, name: string, equal: readonly Scalar[]): Promise<Document[]> {
    const index = indexOf(this.collections, collection, name);
    const where = ['doc is not null', ...index.equal.map((f, i) => `${field(f)} = $${i + 1}::jsonb`)].join(' and ');
    const order = index.order.flatMap(([f, direction]) => orderKeys(f, direction)).join(', ');
    const { rows } = await this.read.query<{ doc: Document }>(
      `select doc from ${documentTable(collection)} where ${where}${order === '' ? '' : ` order by ${order}`}`,
      equal.map((value) => JSON.stringify(value)),
    );
    return rows.map((row) => row.doc);
  }

  /** As MongoDB's distinct: an array field's elements unwound, a scalar taken as it is; strings only. */
  async distinct(collection: string, name: string, equal: Readonly<Record<string, Scalar>>): Promise<string[]> {
    const fields = Object.keys(equal);
    const value = field(name);
    const where = ['doc is not null', ...fields.map((f, i) => `${field(f)} = $${i + 1}::jsonb`)].join(' and ');
    const { rows } = await this.read.query<{ v: string }>(
      `select distinct e #>> '{}' as v
       from ${documentTable(collection)},
         jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} else jsonb_build_array(${value}) end) e
       where ${where} and jsonb_typeof(e) = 'string'`,
      fields.map((f) => JSON.stringify(equal[f])),
    );
    return rows.map((row) => row.v).sort(compareCodePoints);
  }

  /** Rows as `{ id, document, position }` in id order: the rows the other adapters digest. */
  private async digest(tables: readonly string[]): Promise<ReadModelDigest> {
    return canonicalDigest(
      await Promise.all(
        tables.map(async (table) => ({
          name: table,
          rows: (await this.read.scan(table))
            .map((row) => ({
              id: JSON.parse(row.id as string) as DocumentId,
              document: row.doc ?? null,
              position: Number(row.position),
            }))
            .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
        })),
      ),
    );
  }
}
