import { EVENT_CATALOG } from '../app/event-catalog';
import { accessJson, auditEventJson, historyStepJson, personAccessJson } from '../audit/audit-json';
import type { AuditFilter } from '../audit/audit-log';
import { decodeCursor, encodeCursor } from '../audit/audit-log';
import {
  directoriesAt,
  readAuditPage,
  readResourceHistory,
  reviewAccessAt,
  reviewPersonAccessAt,
} from '../audit/audit-queries';
import { recordAuditRead } from '../audit/record-audit-read';
import { systemActor } from '../domain/event';
import type { EventStore } from '../ports/event-store';
import { askService, isRedirect, problemDetail, refusalDetail, serviceBase } from './service-api';

export type AuditEventRecord = ReturnType<ReturnType<typeof auditEventJson>>;
export type HistoryRecord = ReturnType<typeof historyStepJson>;
export type AccessRecord = ReturnType<typeof accessJson>;
export type PersonAccessRecord = ReturnType<typeof personAccessJson>;

/** The events query as the API takes it (`auditEventsQuery`), its times as ISO strings. */
export type EventsQuery = {
  readonly stream?: string;
  readonly userId?: number;
  readonly credential?: 'session' | 'apiKey' | 'system';
  readonly apiKeyId?: number;
  readonly type?: string;
  readonly from?: string;
  readonly to?: string;
};

export type EventsPage = { items: AuditEventRecord[]; next: string | undefined; hasMore: boolean };

/**
 * Where the CLI's audit reads come from: the stores themselves (an operator on the machine, each
 * read recorded as the platform, `audit-0`), or the HTTP API as an auditor (each read recorded by
 * the API under that auditor, and no store credentials needed). Both give the API's records.
 */
export interface AuditSource {
  /** Records the read where this source records reads itself (the stores); the API records its own. */
  record(route: string, params: Record<string, unknown>): Promise<void>;
  eventsPage(query: EventsQuery, after: string | undefined, limit: number): Promise<EventsPage>;
  history(id: number): Promise<HistoryRecord[] | null>;
  access(id: number, at: Date): Promise<AccessRecord | null>;
  accessOf(id: number, at: Date): Promise<PersonAccessRecord | null>;
  close(): Promise<void>;
}

const defined = <T extends Record<string, unknown>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function storeSource(store: EventStore): AuditSource {
  return {
    record: async (route, params) => {
      await recordAuditRead(
        store,
        { actor: systemActor, correlationId: `cli-audit-${Date.now()}`, at: new Date().toISOString() },
        route,
        params,
      );
    },
    eventsPage: async (query, after, limit) => {
      const filter: AuditFilter = {
        ...defined({
          stream: query.stream,
          userId: query.userId,
          credential: query.credential,
          apiKeyId: query.apiKeyId,
          type: query.type,
        }),
        ...(query.from !== undefined ? { from: Date.parse(query.from) } : {}),
        ...(query.to !== undefined ? { to: Date.parse(query.to) } : {}),
      };
      const page = await readAuditPage(
        store,
        filter,
        after === undefined ? undefined : decodeCursor(after, '--after'),
        limit,
      );
      return {
        items: page.items.map(auditEventJson(EVENT_CATALOG)),
        next: page.lastSeen === undefined ? undefined : encodeCursor(page.lastSeen),
        hasMore: page.hasMore,
      };
    },
    history: async (id) => {
      const steps = await readResourceHistory(store, id);
      if (!steps) return null;
      const [directory] = await directoriesAt(store, [undefined]);
      const names = new Map([...directory.users.values()].map((u) => [u.userId, u.name] as const));
      return steps.map((step) => historyStepJson(step, names));
    },
    access: async (id, at) => {
      const review = await reviewAccessAt(store, id, at);
      return review ? accessJson(id, at, review) : null;
    },
    accessOf: async (id, at) => {
      const access = await reviewPersonAccessAt(store, id, at);
      return access ? personAccessJson(id, at, access) : null;
    },
    close: () => store.close(),
  };
}

/** The API refused a read (a 4xx or 5xx problem): the CLI prints its detail and exits 1. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`the API answered ${status}: ${detail}`);
    this.name = 'ApiRefusal';
  }
}

/**
 * The audit API over HTTP, as the auditor the credential names: a bearer token
 * (RESOURCES_TOKEN) or an API key (RESOURCES_API_KEY), read from the environment, never from the
 * command line, where other users of the machine could read them.
 */
export function apiSource(
  baseUrl: string,
  credential: { readonly token?: string; readonly apiKey?: string },
  fetchImpl: typeof fetch = fetch,
): AuditSource {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (credential.token) headers.authorization = `Bearer ${credential.token}`;
  else if (credential.apiKey) headers['x-api-key'] = credential.apiKey;
  const base = serviceBase(baseUrl);
  const get = async <T>(path: string, query: Record<string, unknown>): Promise<T | null> => {
    const search = new URLSearchParams(
      Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])),
    ).toString();
    const res = await askService(`${base}${path}${search ? `?${search}` : ''}`, { headers }, fetchImpl);
    if (isRedirect(res)) throw new ApiRefusal(res.status, await refusalDetail(res));
    const text = await res.text();
    if (res.status === 404) return null;
    if (!res.ok) throw new ApiRefusal(res.status, problemDetail(text));
    return JSON.parse(text) as T;
  };
  return {
    record: async () => undefined,
    eventsPage: async (query, after, limit) => {
      const page = await get<{ items: AuditEventRecord[]; next: string | null; hasMore: boolean }>(
        '/api/audit/events',
        { ...query, after, limit },
      );
      if (!page) throw new ApiRefusal(404, 'the audit API is not served at this address');
      return { items: page.items, next: page.next ?? undefined, hasMore: page.hasMore };
    },
    history: async (id) =>
      (await get<{ steps: HistoryRecord[] }>(`/api/audit/resources/${id}/history`, {}))?.steps ?? null,
    access: (id, at) => get<AccessRecord>(`/api/audit/resources/${id}/access`, { at: at.toISOString() }),
    accessOf: (id, at) => get<PersonAccessRecord>(`/api/audit/users/${id}/access`, { at: at.toISOString() }),
    close: async () => undefined,
  };
}
