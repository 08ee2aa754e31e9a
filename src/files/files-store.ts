import { indexOf, orderKeyOf, type DocumentStore, type Scalar } from '../projections/document-store';
import type { ProjectionStore } from '../projections/read-model-projection';
import {
  BY_PATH,
  FILE_REFERENCES,
  FILES,
  FILES_READ_MODEL,
  LIVE_BY_AGE,
  type FileReference,
  type StoredFile,
} from './files-projection';

/**
 * What the files read model answers, in the service's questions: what is stored under a path,
 * which resources reference it, which uploads nobody references.
 */
export interface FilesStore {
  readonly projectionStore: ProjectionStore;
  file(path: string): Promise<StoredFile | null>;
  referencingResources(path: string): Promise<number[]>;
  /** Paths of live uploads made before `uploadedBefore` (ISO 8601) that no resource references, oldest first. */
  unreferencedUploads(uploadedBefore: string, limit: number): Promise<string[]>;
}

/**
 * How many documents one query reads: a path's references (more are read by a second query) and
 * the live uploads of one page of the sweep's walk.
 */
const PAGE_SIZE = 500;
const liveByAge = indexOf(FILES_READ_MODEL.collections, FILES, LIVE_BY_AGE);

/**
 * The files read model's queries, read through the document store on its declared indexes.
 * `pageSize`: the documents one query reads (smaller in the contract suite, to cross pages).
 */
export function filesStore(documents: DocumentStore, pageSize = PAGE_SIZE): FilesStore {
  const referencing = (path: string, skip: number, take: number) =>
    documents.page(FILE_REFERENCES, { index: BY_PATH, equal: [path], page: { skip, take } });
  return {
    projectionStore: documents.projectionStore,
    file: async (path) => (await documents.get(FILES, path)) as StoredFile | null,
    referencingResources: async (path) => {
      const first = await referencing(path, 0, pageSize);
      const rest = first.count > first.list.length ? await referencing(path, first.list.length, first.count) : null;
      return ([...first.list, ...(rest?.list ?? [])] as FileReference[]).map((reference) => reference.resourceId);
    },
    /*
     * The background sweep's question, answered by a walk: live uploads oldest first, by keyset
     * pages, each kept when no reference document names its path, until `limit` are found or the
     * walk reaches `uploadedBefore`. It reads every referenced upload older than that on its way,
     * which a sweep an hour can afford and no request asks for.
     */
    unreferencedUploads: async (uploadedBefore, limit) => {
      const found: string[] = [];
      let after: Scalar[] | null = null;
      while (found.length < limit) {
        const { list } = await documents.page(FILES, {
          index: LIVE_BY_AGE,
          equal: [false],
          page: { skip: 0, take: pageSize },
          after,
        });
        for (const file of list as StoredFile[]) {
          // Code-unit order, as the index orders the times.
          if (file.uploadedAt >= uploadedBefore) return found;
          if ((await referencing(file.path, 0, 0)).count === 0) found.push(file.path);
          if (found.length >= limit) return found;
        }
        const last = list.at(-1);
        if (!last || list.length < pageSize) return found;
        after = orderKeyOf(liveByAge, last);
      }
      return found;
    },
  };
}
