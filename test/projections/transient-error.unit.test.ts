import {
  DeadlineExceededError,
  NotLeaderError,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  convertToCommandError,
} from '@eventstore/db-client';
import Database from 'better-sqlite3';
import {
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoWriteConcernError,
} from 'mongodb';
import pg from 'pg';
import { ReadDeadlineExceededError } from '../../src/infra/eventstoredb/streaming-read';
import { isTransientStoreError } from '../../src/projections/transient-error';

/**
 * What @grpc/grpc-js hands the EventStoreDB client when a call fails with `code`; the server names
 * its exception (e.g. not-leader) in the trailers, which the client reads through getMap().
 */
function grpcServiceError(code: number, details: string, trailers: Record<string, string> = {}) {
  const metadata = { getMap: () => trailers };
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata }) as never;
}

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:27017`), { code, syscall: 'connect' });
}

/** The driver's error for a wait for a pooled connection past waitQueueTimeoutMS (not exported by its index). */
function waitQueueTimeout(): Error {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WaitQueueTimeoutError } = require('mongodb/lib/cmap/errors') as {
    WaitQueueTimeoutError: new (message: string, address: string) => Error;
  };
  return new WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', 'db:27017');
}

const serverError = (code: number, errorLabels: string[] = []) =>
  new MongoServerError({ code, errmsg: `server error ${code}`, errorLabels });

/** What node-postgres raises for an error the server sent: its SQLSTATE in `code`. */
const postgresError = (code: string, message: string) =>
  Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code });

const notLeaderTrailers = { exception: 'not-leader', 'leader-endpoint-host': 'n2', 'leader-endpoint-port': '2113' };

const transient: ReadonlyArray<readonly [string, unknown]> = [
  ['MongoNetworkError', new MongoNetworkError('connection 3 to mongo:27017 closed')],
  ['MongoNetworkTimeoutError', new MongoNetworkTimeoutError('connection timed out')],
  [
    'MongoServerSelectionError',
    new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as never),
  ],
  ['MongoNotConnectedError', new MongoNotConnectedError('client must be connected')],
  ['MongoOperationTimeoutError', new MongoOperationTimeoutError('timed out')],
  ['MongoStalePrimaryError', new MongoStalePrimaryError('stale primary')],
  ['ShutdownInProgress (91)', serverError(91)],
  ['FailedToSatisfyReadPreference (133), no member for the read preference', serverError(133)],
  ['ReadConcernMajorityNotAvailableYet (134), a member just elected', serverError(134)],
  ['Interrupted (11601), an operator killOp', serverError(11601)],
  ['PrimarySteppedDown (189)', serverError(189)],
  ['NotWritablePrimary (10107)', serverError(10107)],
  ['InterruptedAtShutdown (11600)', serverError(11600)],
  ['InterruptedDueToReplStateChange (11602)', serverError(11602)],
  ['NotPrimaryNoSecondaryOk (13435)', serverError(13435)],
  ['NotPrimaryOrSecondary (13436)', serverError(13436)],
  ['MaxTimeMSExpired (50), a query past its maxTimeMS', serverError(50)],
  ['ExceededTimeLimit (262), the same from a mongos', serverError(262)],
  ['MaxTimeMSExpired (50), wrapped', new Error('query failed', { cause: serverError(50) })],
  ['every pooled connection busy past waitQueueTimeoutMS', waitQueueTimeout()],
  ['PostgreSQL admin_shutdown (57P01)', postgresError('57P01', 'terminating connection due to administrator command')],
  ['PostgreSQL cannot_connect_now (57P03)', postgresError('57P03', 'the database system is starting up')],
  ['PostgreSQL query_canceled (57014), a statement timeout', postgresError('57014', 'canceling statement')],
  ['PostgreSQL connection_failure (08006)', postgresError('08006', 'connection failure')],
  ['PostgreSQL too_many_connections (53300)', postgresError('53300', 'sorry, too many clients already')],
  ['PostgreSQL serialization_failure (40001)', postgresError('40001', 'could not serialize access')],
  ['PostgreSQL deadlock_detected (40P01)', postgresError('40P01', 'deadlock detected')],
  [
    'PostgreSQL read_only_sql_transaction (25006), a standby after a failover',
    postgresError('25006', 'cannot execute INSERT in a read-only transaction'),
  ],
  ['node-postgres: a connection cut under a query', new Error('Connection terminated unexpectedly')],
  ['node-postgres: the pool could not connect in time', new Error('timeout exceeded when trying to connect')],
  ['EPIPE, a 5-letter system code', systemError('EPIPE')],
  ['label RetryableWriteError', serverError(1, ['RetryableWriteError'])],
  ['label TransientTransactionError', serverError(251, ['TransientTransactionError'])],
  ['label ResetPool', serverError(1, ['ResetPool'])],
  ['label PoolRequestedRetry', serverError(1, ['PoolRequestedRetry'])],
  [
    'write concern error 91',
    new MongoWriteConcernError({ writeConcernError: { code: 91, errmsg: 'shutting down' } } as never),
  ],
  [
    'a majority write concern that timed out on commit (64, WriteConcernFailed)',
    new MongoWriteConcernError({
      writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } },
    } as never),
  ],
  [
    'a commit whose outcome is unknown (UnknownTransactionCommitResult)',
    serverError(50000, ['UnknownTransactionCommitResult']),
  ],
  ['a server error 64 (WriteConcernFailed)', serverError(64)],
  ['EventStoreDB UNAVAILABLE (from gRPC)', convertToCommandError(grpcServiceError(14, 'No connection established'))],
  ['EventStoreDB DEADLINE_EXCEEDED (from gRPC)', convertToCommandError(grpcServiceError(4, 'Deadline exceeded'))],
  ['EventStoreDB UnavailableError', new UnavailableError(undefined, 'unavailable')],
  ['EventStoreDB DeadlineExceededError', new DeadlineExceededError(undefined, 'deadline')],
  [
    'EventStoreDB NotLeaderError (from gRPC)',
    convertToCommandError(grpcServiceError(5, 'Leader info available', notLeaderTrailers)),
  ],
  ['raw gRPC UNAVAILABLE', grpcServiceError(14, 'unavailable')],
  // What the client makes of a batch append a node refused while starting or overloaded.
  [
    'EventStoreDB node not ready (batch append)',
    new UnknownError(undefined, 'Could not recognize Server Is Not Ready'),
  ],
  ['EventStoreDB node busy (batch append)', new UnknownError(undefined, 'Could not recognize Server Is Too Busy')],
  [
    'EventStoreDB CANCELLED (from gRPC): a node ending its long-running calls',
    convertToCommandError(grpcServiceError(1, 'Server has cancelled a long running request')),
  ],
  ['raw gRPC CANCELLED', grpcServiceError(1, 'Cancelled on client')],
  [
    'EventStoreDB INTERNAL from a stream the transport reset (from gRPC)',
    convertToCommandError(grpcServiceError(13, 'Received RST_STREAM with code 2 triggered by internal client error')),
  ],
  ['raw gRPC INTERNAL, a call ended without a status', grpcServiceError(13, 'Call ended without gRPC status')],
  ['our read deadline', new ReadDeadlineExceededError(2000)],
  ['SQLITE_BUSY', new Database.SqliteError('database is locked', 'SQLITE_BUSY')],
  ['SQLITE_BUSY_SNAPSHOT', new Database.SqliteError('database is locked', 'SQLITE_BUSY_SNAPSHOT')],
  ['SQLITE_LOCKED', new Database.SqliteError('database table is locked', 'SQLITE_LOCKED')],
  ['ECONNRESET', systemError('ECONNRESET')],
  ['ECONNREFUSED', systemError('ECONNREFUSED')],
  ['ETIMEDOUT', systemError('ETIMEDOUT')],
  ['EPIPE', systemError('EPIPE')],
  ['ENOTFOUND, a host name that does not resolve (a container stopped)', systemError('ENOTFOUND')],
  ['a wrapped ECONNRESET', new Error('projection resources failed', { cause: systemError('ECONNRESET') })],
];

const fatal: ReadonlyArray<readonly [string, unknown]> = [
  ['TypeError (a projection bug)', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ['RangeError', new RangeError('Invalid array length')],
  ['plain Error', new Error('unexpected event shape')],
  ['duplicate key (11000)', serverError(11000)],
  ['MongoServerError without a transient code or label', serverError(2)],
  ['MongoInvalidArgumentError', new MongoInvalidArgumentError('bad option')],
  ['EventStoreDB StreamNotFoundError', new StreamNotFoundError(undefined, 'resource-1')],
  ['EventStoreDB UnknownError of anything else', new UnknownError(undefined, 'Could not recognize Stream is deleted')],
  [
    'EventStoreDB access denied (from gRPC)',
    convertToCommandError(grpcServiceError(7, 'Access denied', { exception: 'access-denied' })),
  ],
  ['raw gRPC INVALID_ARGUMENT', grpcServiceError(3, 'invalid argument')],
  ['raw gRPC INTERNAL, a server bug', grpcServiceError(13, 'Object reference not set to an instance of an object')],
  ['SQLITE_CONSTRAINT_UNIQUE', new Database.SqliteError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE')],
  ['SQLITE_CORRUPT', new Database.SqliteError('database disk image is malformed', 'SQLITE_CORRUPT')],
  ['ENOENT', systemError('ENOENT')],
  ['PostgreSQL unique_violation (23505)', postgresError('23505', 'duplicate key value violates unique constraint')],
  ['PostgreSQL undefined_table (42P01)', postgresError('42P01', 'relation "x" does not exist')],
  ['PostgreSQL syntax_error (42601)', postgresError('42601', 'syntax error at or near')],
  ['a string', 'ECONNRESET'],
  ['undefined', undefined],
  ['null', null],
];

describe('transient store errors', () => {
  it.each(transient)('given %s, then it is transient (retry with backoff)', (_name, error) => {
    // when
    const verdict = isTransientStoreError(error);
    // then
    expect(verdict).toBe(true);
  });

  it.each(fatal)('given %s, then it is fatal (the runner stops)', (_name, error) => {
    // when
    const verdict = isTransientStoreError(error);
    // then
    expect(verdict).toBe(false);
  });

  it('given gRPC failures, when the EventStoreDB client converts them, then they are the classes the table relies on', () => {
    // given / when / then
    expect(convertToCommandError(grpcServiceError(14, 'x'))).toBeInstanceOf(UnavailableError);
    expect(convertToCommandError(grpcServiceError(4, 'x'))).toBeInstanceOf(DeadlineExceededError);
    expect(convertToCommandError(grpcServiceError(5, 'x', notLeaderTrailers))).toBeInstanceOf(NotLeaderError);
  });
});
