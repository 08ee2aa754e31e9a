import type Database from 'better-sqlite3';
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
import { sqliteProjectionStore, type SqliteReadDb } from './sqlite-read-db';

/** A field name is spliced into SQL (a JSON path, an index expression): only plain identifiers. */
function field(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a document field name: ${name}`);
  return `json_extract(doc, '$.${name}')`;
}

/** A value asked for, as SQLite binds it: `json_extract` reads JSON true and false as 1 and 0. */
const bindable = (value: Scalar): string | number => (typeof value === 'boolean' ? Number(value) : value);

export const documentTable = (collection: string): string => `doc_${collection}`;

/** The collection's table and one expression index per declared index. */
function schemaOf({ name, indexes }: CollectionDeclaration): { table: string; indexes: string[] } {
  const table = documentTable(name);
  return {
    table: `create table if not exists ${table} (id any primary key, doc text, position integer not null) strict`,
    indexes: Object.entries(indexes).map(([indexName, index]) => {
      const columns = [
        ...index.equal.map((f) => field(f)),
        ...index.order.map(([f, direction]) => `${field(f)}${direction === -1 ? ' desc' : ''}`),
      ];
      return `create index if not exists ${table}_${indexName} on ${table} (${columns.join(', ')})`;
    }),
  };
}

const orderBy = (index: IndexDeclaration): string =>
  index.order.map(([f, direction]) => `${field(f)}${direction === -1 ? ' desc' : ''}`).join(', ');

/**
 * Every document read model on the embedded database: a table per collection holding the id, the
 * JSON document and the position of the event that wrote it, with an expression index per declared
 * index, so a page is read along the index in the order it declares.
 */
export class SqliteDocumentStore implements DocumentStore {
  readonly projectionStore: ProjectionStore;
  readonly version: () => string | null;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  /** `scope`: the read scope each write that changes a document touches in the change feed (scopeOf). */
  constructor(
    private readonly read: SqliteReadDb,
    private readonly collections: readonly CollectionDeclaration[],
    private readonly scope: string,
  ) {
    this.db = read.db;
    this.version = () => read.feed.version(scope);
    for (const collection of collections) {
      const { table, indexes } = schemaOf(collection);
      this.db.exec(table);
      for (const index of indexes) read.createIndexes(index);
    }
    const tables = collections.map((c) => documentTable(c.name));
    this.projectionStore = { ...sqliteProjectionStore(read, tables), digest: async () => this.digest(tables) };
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  async load(collection: string, id: DocumentId): Promise<{ document: Document | null; position: bigint } | null> {
    const row = this.statement(`select doc, position from ${documentTable(collection)} where id = ?`).get(id) as
      { doc: string | null; position: number } | undefined;
    return row
      ? { document: row.doc === null ? null : (JSON.parse(row.doc) as Document), position: BigInt(row.position) }
      : null;
  }

  async save(collection: string, id: DocumentId, document: Document | null, position: bigint): Promise<void> {
    const table = documentTable(collection);
    const { changes } = this.statement(
      `insert into ${table} (id, doc, position) values (?, ?, ?) on conflict (id) do update set ` +
        `doc = excluded.doc, position = excluded.position where excluded.position > ${table}.position`,
    ).run(id, document === null ? null : JSON.stringify(document), position);
    if (changes > 0) this.read.feed.touch(this.scope);
  }

  async get(collection: string, id: DocumentId): Promise<Document | null> {
    return (await this.load(collection, id))?.document ?? null;
  }

  async loadMany(
    collection: string,
    ids: readonly DocumentId[],
  ): Promise<{ id: DocumentId; document: Document | null; position: bigint }[]> {
    if (ids.length === 0) return [];
    const rows = this.statement(
      `select id, doc, position from ${documentTable(collection)} where id in (select value from json_each(?))`,
    ).all(JSON.stringify([...new Set(ids)])) as { id: DocumentId; doc: string | null; position: number }[];
    return rows.map((row) => ({
      id: row.id,
      document: row.doc === null ? null : (JSON.parse(row.doc) as Document),
      position: BigInt(row.position),
    }));
  }

  async page(collection: string, { index: name, equal, page, after }: IndexQuery): Promise<PageResponse<Document>> {
    const index = indexOf(this.collections, collection, name);
    const table = documentTable(collection);
    const where = ['doc is not null', ...index.equal.map((f) => `${field(f)} = ?`)].join(' and ');
    const count = (
      this.statement(`select count(*) as n from ${table} where ${where}`).get(...equal.map(bindable)) as { n: number }
    ).n;
    if (page.take === 0 || count === 0) return { count, list: [] };
    const order = orderBy(index);
    const keyset = after ? keysetAlternatives(index, after) : [];
    const beyond = keyset.map(({ equal: same, beyond: [f, direction] }) =>
      [...same.map(([g]) => `${field(g)} = ?`), `${field(f)} ${direction === 1 ? '>' : '<'} ?`].join(' and '),
    );
    const afterKey = keyset.length === 0 ? '' : ` and (${beyond.map((b) => `(${b})`).join(' or ')})`;
    const rows = this.statement(
      `select doc from ${table} where ${where}${afterKey} order by ${order} limit ? offset ?`,
    ).all(
      ...equal.map(bindable),
      ...keyset.flatMap(({ equal: same, beyond: [, , value] }) => [...same.map(([, v]) => v), value]).map(bindable),
      page.take,
      page.skip,
    ) as { doc: string }[];
    return { count, list: rows.map((row) => JSON.parse(row.doc) as Document) };
  }

  async find(collection: string, name: string, equal: readonly Scalar[]): Promise<Document[]> {
    const index = indexOf(this.collections, collection, name);
    const where = ['doc is not null', ...index.equal.map((f) => `${field(f)} = ?`)].join(' and ');
    const order = index.order.length === 0 ? '' : ` order by ${orderBy(index)}`;
    const rows = this.statement(`select doc from ${documentTable(collection)} where ${where}${order}`).all(
      ...equal.map(bindable),
    ) as { doc: string }[];
    return rows.map((row) => JSON.parse(row.doc) as Document);
  }

  async distinct(collection: string, name: string, equal: Readonly<Record<string, Scalar>>): Promise<string[]> {
    const fields = Object.keys(equal);
    const where = ['t.doc is not null', "j.type = 'text'", ...fields.map((f) => `json_extract(t.doc, '$.${f}') = ?`)];
    field(name);
    for (const f of fields) field(f);
    const rows = this.statement(
      `select distinct j.value as v from ${documentTable(collection)} t, json_each(t.doc, '$.${name}') j where ${where.join(' and ')}`,
    ).all(...fields.map((f) => bindable(equal[f] as Scalar))) as { v: string }[];
    return rows.map((row) => row.v).sort(compareCodePoints);
  }

  /** Rows as `{ id, document, position }` in id order: the same rows the MongoDB adapter digests. */
  private digest(tables: readonly string[]): ReadModelDigest {
    return canonicalDigest(
      tables.map((table) => ({
        name: table,
        rows: (
          this.statement(`select id, doc, position from ${table} order by id`).all() as {
            id: DocumentId;
            doc: string | null;
            position: number;
          }[]
        ).map((row) => ({
          id: row.id,
          document: row.doc === null ? null : JSON.parse(row.doc),
          position: row.position,
        })),
      })),
    );
  }
}
