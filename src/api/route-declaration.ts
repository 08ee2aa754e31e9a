import type { Request, RequestHandler, Response } from 'express';
import type { ZodRequestBody } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import type { Caller } from '../domain/auth/caller';
import { assertMayWrite, assertOwnLogin } from '../domain/auth/caller';
import { callerOf, requestInfoOf } from './middleware/authenticate';
import type { RequestInfo } from '../commands/request-info';
import type { Write } from '../ports/event-store';
import { parseWith } from './validation';
import type { AnswerMemo } from '../projections/answer-memo';
import { JsonText } from '../contract/json-text';
import type { RouteTarget } from './exact-path-routes';
import type { IdempotencyKeys, RecordedWrite } from '../ports/idempotency-keys';
import { idempotencyKeyOf, serveIdempotently } from './idempotency';
import type { Span } from '@opentelemetry/api';
import { withSpan } from '../observability/tracing';

/**
 * One route, declared once where its router is: what the OpenAPI document says about it
 * (src/api/openapi.ts reads `doc`) and the express handler, which gets the request already parsed
 * with the very schemas the document shows. The document cannot list a route that is not served,
 * nor a request shape the handler does not check. A route is declared in its file's group
 * (`routeGroup`), which says once what the file's routes share: their tag and their access.
 */

export type Method = 'get' | 'post' | 'delete';

/** A problem status a route can answer besides 500 (which every route can), each raised by some code path. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503;

/**
 * Who may call. `api`: a bearer session or an API key (and so the key's rate limit); `ownLogin`: the
 * user's own bearer session only, no API key and no impersonation (assertOwnLogin), checked before the
 * request is read; `internal`: the X-Directory-Token.
 */
export type Access = 'public' | 'api' | 'ownLogin' | 'internal';

/** A documented answer: a JSON body of `json`, a problem body, other content, or no body. */
export type AnswerDoc =
  | {
      readonly description: string;
      readonly json: z.ZodType;
      /** Headers the answer carries besides the common ones, by name: what each says. */
      readonly headers?: Readonly<Record<string, string>>;
      /** Other media types the same answer may be asked in (e.g. text/csv with `format=csv`). */
      readonly alsoContent?: ZodRequestBody['content'];
    }
  | { readonly description: string; readonly problem: true }
  | { readonly description: string; readonly content?: ZodRequestBody['content'] };

export type RequestSchemas = {
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** A JSON body; `bodyOptional`: a missing body is read as `{}` (a request for the defaults). */
  readonly body?: z.ZodType;
  readonly bodyOptional?: boolean;
  /** Top-level body fields that are known and ignored (removed before a strict body is parsed). */
  readonly ignoredBodyFields?: readonly string[];
  /** A body the handler reads itself (multipart): documented, not parsed here. */
  readonly documentedBody?: ZodRequestBody;
};

/** What the OpenAPI document is built from. */
export type RouteDoc = {
  readonly method: Method;
  /** OpenAPI form, `{param}`; express gets `:param`. */
  readonly path: string;
  /** Stable: generated clients name their methods after it. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly access: Access;
  readonly request?: RequestSchemas;
  readonly answers: Readonly<Record<number, AnswerDoc>>;
  /**
   * The problems it can answer besides 500 (and 429, which every API-key route can, and 503, which every
   * route behind a credential can).
   */
  readonly errors: readonly ErrorStatus[];
  /** Accepts an Idempotency-Key (src/api/idempotency.ts): documented with the header and its 409 and 422. */
  readonly idempotent?: boolean;
  /** Changes state: a read-only API key is refused it (assertMayWrite), whatever its method. */
  readonly writes?: boolean;
};

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export type RouteInput<R extends RequestSchemas | undefined> = {
  readonly params: Parsed<NonNullable<R>['params']>;
  readonly query: Parsed<NonNullable<R>['query']>;
  readonly body: Parsed<NonNullable<R>['body']>;
  readonly req: Request;
  readonly res: Response;
  /** Who asks (a 401 when the route is public or internal, where nobody is authenticated). */
  readonly caller: Caller;
  /** The caller, the correlation id and the client's address: what a command stamps its events with. */
  readonly request: RequestInfo;
  readonly correlationId: string;
};

/**
 * What a write route answers: where its events landed, and its answer, given once the read models
 * show the write and the reactions to it are done (see `Settle`). `written(write, () => body)`.
 */
export class Written<B> {
  constructor(
    readonly write: Write | undefined,
    readonly answer: () => B | Promise<B>,
  ) {}
}

/** A write's answer, `answer` asked once the write settled; `write` undefined when nothing was appended. */
export const written = <B>(write: Write | bigint | undefined, answer: () => B | Promise<B>): Written<B> =>
  new Written(typeof write === 'bigint' ? { position: write } : write, answer);

/**
 * Waits until the read models show `write` and runs what reacts to it (e.g. releasing an upload no
 * resource references any more), stamped as `request`'s (or, without one, as the system's) work.
 */
export type Settle = (write: Write, request: RequestInfo | undefined, correlationId: string) => Promise<void>;

/** Serialising does not care whether the code holds its arrays read-only. */
type ReadonlyDeep<T> = T extends readonly (infer E)[]
  ? readonly ReadonlyDeep<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/** The JSON bodies a route declares: a handler returns one of them, or answers by itself and returns nothing. */
type JsonAnswer<A> = {
  [K in keyof A]: A[K] extends { json: infer S extends z.ZodType }
    ? ReadonlyDeep<z.input<S>> | JsonText<z.input<S>>
    : never;
}[keyof A];

const textOf = (body: unknown): string => (body instanceof JsonText ? body.text : JSON.stringify(body));
/** An answer's UTF-8: what the HTTP layer sends and the answer memo keeps. */
const bytesOf = (body: unknown): Buffer =>
  body instanceof JsonText ? body.bytes : Buffer.from(JSON.stringify(body), 'utf8');

type Answer<A> = JsonAnswer<A> | Written<JsonAnswer<A> | void> | void;

export type RouteHandler<R extends RequestSchemas | undefined, A> = (
  input: RouteInput<R>,
) => Promise<Answer<A>> | Answer<A>;

export type Route<D> = {
  readonly doc: RouteDoc;
  /** Registers the handler on `router`, with `deps` (the app context, or what the group needs). */
  readonly mount: (router: RouteTarget, deps: D, before: readonly RequestHandler[]) => void;
};

/** Checks the caller before the request is read (e.g. the auditor role: a 403 comes before any 400). */
export type Authorize = (caller: Caller) => void;

/** What a route says besides its identity (method, path, operationId) and what its group gives it. */
export type RouteDeclaration<D, R extends RequestSchemas | undefined, A extends Record<number, AnswerDoc>> = Pick<
  RouteDoc,
  'summary' | 'description' | 'errors' | 'writes'
> & {
  /** The group's unless said here. */
  readonly access?: Access;
  readonly request?: R;
  readonly answers: A;
  /** The group's unless said here. */
  readonly authorize?: Authorize;
  /** Given the group's deps once, at mount; answers each request. */
  readonly handle: (deps: D) => RouteHandler<R, A>;
  /**
   * For an answer that depends on nothing but `key` and the read models: its text is served from `memo` while
   * they stand still.
   */
  readonly remember?: Remembered<D, R>;
  /** A POST that changes state: it accepts an Idempotency-Key. */
  readonly idempotent?: Idempotent<D, R, A>;
};

/**
 * How a state-changing route serves a request with an Idempotency-Key (src/api/idempotency.ts):
 * where keys are kept, how to answer from the write of an attempt that died before it answered,
 * and which top-level fields of its answer are secrets, never kept.
 */
export type Idempotent<D, R extends RequestSchemas | undefined, A> = {
  readonly store: (deps: D) => { readonly idempotencyKeys: IdempotencyKeys; readonly clock: () => Date };
  readonly resume: (deps: D) => (write: RecordedWrite, input: RouteInput<R>) => Promise<Answer<A>>;
  readonly secretFields?: readonly string[];
  /**
   * For a body the handler reads itself (multipart), what makes two requests one, read from the body
   * before the key is looked up (the default: method, path with query and JSON body). The route keeps
   * what it read for its handler, and gives it up when the handler does not run (a replay, a 409, a 422).
   * Undefined when it answered by itself (a refused body): the key is then left alone.
   */
  readonly fingerprint?: (deps: D) => (input: RouteInput<R>) => Promise<string | undefined>;
};

/**
 * Where a route's answers are remembered and under what key. The key must hold everything the
 * answer depends on besides the read models (who asks, what they ask): two requests with one key
 * get one text. `memo` is asked at each request: a blue/green rebuild replaces the read models.
 */
export type Remembered<D, R extends RequestSchemas | undefined> = {
  readonly memo: (deps: D) => AnswerMemo;
  readonly key: (input: RouteInput<R>) => string;
  /** The parts of the read models the answer is read from (see readScope): a change elsewhere keeps it. */
  readonly scopes: (input: RouteInput<R>) => readonly string[];
};

/** Declares one route of a group: `group.get(path, operationId, { summary, answers, errors, handle })`. */
export type DeclareRoute<D> = <const R extends RequestSchemas | undefined, const A extends Record<number, AnswerDoc>>(
  path: string,
  operationId: string,
  declaration: RouteDeclaration<D, R, A>,
) => Route<D>;

/**
 * The routes of one file, which share their tag, their access and authorization (a route may say its own) and
 * their deps.
 */
export type RouteGroup<D> = { readonly [M in Method]: DeclareRoute<D> };

/**
 * What a group's routes share; `authorize` e.g. the auditor role of every audit route; `settle`,
 * for a group whose routes write, how a write is awaited before it is answered.
 */
export type RouteGroupShared<D> = Pick<RouteDoc, 'tag' | 'access'> & {
  readonly authorize?: Authorize;
  readonly settle?: (deps: D) => Settle;
};

/**
 * The routes of one group: `routeGroup<AppContext>({ tag: 'privacy', access: 'api' }, (privacy) => [
 * privacy.get('/api/Privacy/GetResourcePrivacy', 'getResourcePrivacy', { … }), … ])`. As with
 * express's `router.get(path, …)`, the line that names a route says its method and path; the
 * group exists only inside its list, so what its routes share is said once, beside them.
 */
export function routeGroup<D>(
  shared: RouteGroupShared<D>,
  routes: (group: RouteGroup<D>) => readonly Route<D>[],
): readonly Route<D>[] {
  return routes(groupOf<D>(shared));
}

function groupOf<D>(shared: RouteGroupShared<D>): RouteGroup<D> {
  const declare =
    (method: Method): DeclareRoute<D> =>
    (path, operationId, { access, authorize, ...declaration }) =>
      declareRoute({
        method,
        path,
        operationId,
        tag: shared.tag,
        access: access ?? shared.access,
        authorize: authorize ?? shared.authorize,
        settle: shared.settle,
        ...declaration,
      });
  return { get: declare('get'), post: declare('post'), delete: declare('delete') };
}

/**
 * The one way a route becomes a document entry and a handler. The credential's own limits (its
 * own login, a read-only key on a route that `writes`) and `authorize` run before the request is
 * read; then params, query and body are parsed in that order, each a 400 naming the bad fields;
 * then `handle(deps)` answers.
 */
function declareRoute<D, R extends RequestSchemas | undefined, A extends Record<number, AnswerDoc>>(
  declaration: Omit<RouteDoc, 'request' | 'answers' | 'idempotent'> &
    Omit<RouteDeclaration<D, R, A>, 'access'> & { readonly settle: RouteGroupShared<D>['settle'] },
): Route<D> {
  const { handle, authorize, remember, idempotent, settle: settleOf, ...rest } = declaration;
  const doc: RouteDoc = { ...rest, ...(idempotent ? { idempotent: true } : {}) };
  const request: RequestSchemas = doc.request ?? {};
  const expressPath = doc.path.replace(/\{(\w+)\}/g, ':$1');
  return {
    doc,
    mount(router, deps, before) {
      const handler = handle(deps);
      const resumeWrite = idempotent?.resume(deps);
      const fingerprintOf = idempotent?.fingerprint?.(deps);
      const settle = settleOf?.(deps);
      // A write's answer is given once the write settled.
      const finish = async (input: RouteInput<R>, result: Answer<A>): Promise<JsonAnswer<A> | void> => {
        if (!(result instanceof Written)) return result;
        if (result.write) {
          if (!settle) throw new Error(`${doc.operationId}: a route that writes needs its group's settle`);
          await settle(result.write, doc.access === 'internal' ? undefined : input.request, input.correlationId);
        }
        return result.answer();
      };
      // In the request's span, whatever async turns the request took to get here.
      const answer = (input: RouteInput<R>) =>
        withSpan(input.res.locals.span as Span | undefined, async () => finish(input, await handler(input)));
      const resume =
        resumeWrite &&
        (async (write: RecordedWrite, input: RouteInput<R>) => finish(input, await resumeWrite(write, input)));
      router[doc.method](expressPath, ...before, async (req, res) => {
        if (doc.access === 'ownLogin') assertOwnLogin(callerOf(res));
        if (doc.writes && (doc.access === 'api' || doc.access === 'ownLogin')) assertMayWrite(callerOf(res));
        if (authorize) authorize(callerOf(res));
        if (request.body && hasBody(req) && !req.is('application/json')) {
          throw new UnsupportedMediaType('the body must be application/json');
        }
        const input = {
          params: request.params ? parseWith(request.params, req.params) : undefined,
          query: request.query ? parseWith(request.query, req.query) : undefined,
          body: request.body
            ? parseWith(
                request.body,
                // An optional body that is absent is empty; one sent as JSON `null` is checked as sent (a 400).
                withoutIgnored(
                  request.bodyOptional && req.body === undefined ? {} : req.body,
                  request.ignoredBodyFields,
                ),
              )
            : undefined,
          req,
          res,
          get caller() {
            return callerOf(res);
          },
          get request() {
            return requestInfoOf(res);
          },
          correlationId: res.locals.correlationId as string,
        } as RouteInput<R>;
        if (remember) {
          const key = `${doc.operationId}:${remember.key(input)}`;
          const text = await remember.memo(deps).json(key, remember.scopes(input), async () => {
            const body = await answer(input);
            if (body === undefined) throw new Error(`${doc.operationId}: a remembered route must answer with a body`);
            return bytesOf(body);
          });
          sendJsonText(req, res, text);
          return;
        }
        const key = idempotent && resume ? idempotencyKeyOf(req) : undefined;
        if (idempotent && resume && key !== undefined) {
          const fingerprint = fingerprintOf ? await fingerprintOf(input) : undefined;
          if (fingerprintOf && fingerprint === undefined) return;
          const { idempotencyKeys, clock } = idempotent.store(deps);
          const textOrNothing = (body: unknown) => (body === undefined ? undefined : textOf(body));
          await serveIdempotently({
            keys: idempotencyKeys,
            // The internal routes have no user: their caller is whoever holds the directory token.
            scope: doc.access === 'internal' ? 'internal' : `user:${callerOf(res).userId}`,
            key,
            req,
            res,
            now: () => clock().getTime(),
            run: async () => textOrNothing(await answer(input)),
            resume: async (write) => textOrNothing(await resume(write, input)),
            send: (text) => sendJsonText(req, res, text),
            secretFields: idempotent.secretFields ?? [],
            ...(fingerprint === undefined ? {} : { fingerprint }),
          });
          return;
        }
        const body = await answer(input);
        if (body !== undefined) sendJsonText(req, res, bytesOf(body));
      });
    },
  };
}

/** Whether the request carries a body (RFC 9110: a Content-Length above 0, or a Transfer-Encoding). */
function hasBody(req: Request): boolean {
  return req.header('transfer-encoding') !== undefined || Number(req.header('content-length') ?? 0) > 0;
}

function withoutIgnored(body: unknown, ignored: readonly string[] | undefined): unknown {
  if (!ignored || !body || typeof body !== 'object' || Array.isArray(body)) return body;
  const kept = { ...(body as Record<string, unknown>) };
  for (const field of ignored) delete kept[field];
  return kept;
}

/** A body of a media type the route does not read: a 415 naming the one it does. */
export class UnsupportedMediaType extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedMediaType';
  }
}

/**
 * The JSON answer as express's res.json writes it, less the ETag: an API answer depends on who
 * asks, is never shared by a cache, and hashing every body costs each request a few per cent.
 * Given as bytes, the body is written as it is, beside the headers: a string would be joined to
 * the headers' text and that copy encoded again (Node's OutgoingMessage), about 14 KB twice for
 * each list answered.
 */
function sendJsonText(req: Request, res: Response, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/**
 * Mounts `routes` on `target`, each behind the `before` middleware (e.g. the internal token).
 * The /api groups share one target: a request then finds its route in one place instead of
 * entering a router per group.
 */
export function mountRoutes<D>(
  routes: readonly Route<D>[],
  deps: D,
  before: readonly RequestHandler[],
  target: RouteTarget,
): void {
  for (const route of routes) route.mount(target, deps, before);
}
