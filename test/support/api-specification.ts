import type { Actor } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import type { DirectoryEvents } from './suite-server';
import type { HttpResult, TestServer } from './test-server';

/**
 * Emmett's ApiSpecification, over real HTTP: `given(directory events).when(request).then(...)`.
 * The request is sent as a client would; `then` checks the HTTP answer AND what the request
 * appended to the log, read through the event store port of `server.services` (every event after
 * the log's head before the request): their types (and, where given, streams and data), each
 * stamped with the caller's actor — user, credential (session, or API key with its id),
 * impersonator — and with the request's correlation id: the `X-Correlation-Id` sent, or the one
 * the service made and echoed.
 */

/** Who sends the request: a session (possibly impersonated), or an API key of a user. */
export type Credential =
  | { readonly session: number; readonly impersonatorId?: number }
  | { readonly apiKey: { readonly id: number; readonly key: string }; readonly userId: number };

export type ApiRequest = {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly as?: Credential;
  /** Sent as X-Correlation-Id; without it the service makes one and echoes it. */
  readonly correlationId?: string;
};

/** An appended event as the test expects it: its type, and where given, its stream and part of its data. */
export type ExpectedEvent = {
  readonly type: string;
  readonly streamId?: string;
  readonly data?: Record<string, unknown>;
};

export type Outcome = { readonly response: HttpResult<any>; readonly events: readonly RecordedEvent[] };

/** The actor the service must stamp on the events of a request sent with this credential. */
export function actorOf(credential: Credential): Actor {
  if ('apiKey' in credential)
    return { userId: credential.userId, credential: 'apiKey', apiKeyId: credential.apiKey.id };
  return {
    userId: credential.session,
    credential: 'session',
    ...(credential.impersonatorId === undefined ? {} : { impersonatorId: credential.impersonatorId }),
  };
}

async function send(server: TestServer, request: ApiRequest): Promise<Outcome> {
  const headers: Record<string, string> =
    request.correlationId === undefined ? {} : { 'x-correlation-id': request.correlationId };
  const as = request.as;
  const credential =
    as === undefined
      ? {}
      : 'apiKey' in as
        ? { apiKey: as.apiKey.key }
        : {
            token:
              as.impersonatorId === undefined
                ? await server.sessionToken(as.session)
                : await server.token(as.session, { impersonatorId: as.impersonatorId }),
          };
  const log = server.services.eventStore;
  const before = await log.headPosition();
  const response = await server.request(request.method, request.path, request.body, { ...credential, headers });
  return { response, events: await log.readAll(before, 10_000) };
}

export const ApiSpecification = {
  for(server: TestServer) {
    return (...directory: DirectoryEvents[]) => ({
      when(request: ApiRequest) {
        const outcome = async (): Promise<Outcome> => {
          for (const events of directory) expect((await server.directory(events)).status).toBe(200);
          return send(server, request);
        };
        return {
          /**
           * The status, the body (matched as a subset) and the events appended, in order; answers the outcome
           * for further checks.
           */
          async then(expected: { status: number; body?: unknown; events: readonly ExpectedEvent[] }): Promise<Outcome> {
            const { response, events } = await outcome();
            expect(response.status).toBe(expected.status);
            if (expected.body !== undefined) expect(response.body).toMatchObject(expected.body as object);

            const correlationId = response.headers.get('x-correlation-id');
            if (request.correlationId !== undefined) expect(correlationId).toBe(request.correlationId);
            expect(events.map((e) => e.type)).toEqual(expected.events.map((e) => e.type));
            expected.events.forEach((wanted, i) => expect(events[i]).toMatchObject(wanted));
            for (const event of events) {
              if (request.as !== undefined) expect(event.metadata.actor).toEqual(actorOf(request.as));
              expect(event.metadata.correlationId).toBe(correlationId);
            }
            return { response, events };
          },
          /** A refusal: the status and problem `type`, and nothing appended to the log. */
          async thenRefused(status: number, problemType: string): Promise<void> {
            const { response, events } = await outcome();
            expect(response.status).toBe(status);
            expect(response.body?.type).toBe(problemType);
            if (request.correlationId !== undefined)
              expect(response.headers.get('x-correlation-id')).toBe(request.correlationId);
            expect(events).toEqual([]);
          },
        };
      },
    });
  },
};
