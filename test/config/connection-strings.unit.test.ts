import { ConfigError, loadConfig } from '../../src/config/config';

type Variable = 'MONGODB_URL' | 'EVENTSTORE_URL' | 'REDIS_URL' | 'POSTGRES_URL';

const accepted: ReadonlyArray<readonly [Variable, string]> = [
  ['MONGODB_URL', 'mongodb://localhost:27017/resources'],
  ['MONGODB_URL', 'mongodb://mongo/resources'],
  ['MONGODB_URL', 'mongodb://a:27017,b:27017,c:27017/db?replicaSet=rs0'],
  ['MONGODB_URL', 'mongodb://app:s%40cret@a.example.com:27017,b.example.com:27018/db?replicaSet=rs0&authSource=admin'],
  ['MONGODB_URL', 'mongodb://10.0.0.5:27017,[::1]:27017/db'],
  ['MONGODB_URL', 'mongodb://mongo_1:27017,mongo_2:27017/'],
  ['MONGODB_URL', 'mongodb+srv://cluster0.abcde.mongodb.net/resources?retryWrites=true&w=majority'],
  ['MONGODB_URL', 'mongodb+srv://user:pass@cluster0.abcde.mongodb.net'],
  ['MONGODB_URL', 'mongodb://%2Ftmp%2Fmongodb-27017.sock/db'],
  ['EVENTSTORE_URL', 'esdb://localhost:2113?tls=false'],
  ['EVENTSTORE_URL', 'esdb://n1:2113,n2:2113,n3:2113?tls=false'],
  ['EVENTSTORE_URL', 'esdb://admin:changeit@n1.example.com:2113,n2.example.com:2113?nodePreference=leader'],
  ['EVENTSTORE_URL', 'esdb+discover://cluster.example.com:2113?tls=true'],
  ['EVENTSTORE_URL', 'esdb+discover://n1:2113,n2:2113'],
  ['REDIS_URL', 'redis://localhost:6379'],
  ['REDIS_URL', 'redis://:password@redis:6379/2'],
  ['REDIS_URL', 'rediss://user:password@cache.example.com:6380'],
  ['POSTGRES_URL', 'postgresql://localhost:5432/resources'],
  ['POSTGRES_URL', 'postgres://app:s%40cret@db.example.com/resources?sslmode=require'],
  ['POSTGRES_URL', 'postgresql://app@[::1]:5433/resources'],
  ['POSTGRES_URL', 'postgresql://%2Fvar%2Frun%2Fpostgresql/resources'],
];

const refused: ReadonlyArray<readonly [Variable, string]> = [
  ['MONGODB_URL', 'not a url'],
  ['MONGODB_URL', 'http://localhost:27017/db'],
  ['MONGODB_URL', 'esdb://localhost:2113'],
  ['MONGODB_URL', 'mongodb://'],
  ['MONGODB_URL', 'mongodb:///db'],
  ['MONGODB_URL', 'mongodb://a:27017,,c:27017/db'],
  ['MONGODB_URL', 'mongodb://a:27017,b:99999/db'],
  ['MONGODB_URL', 'mongodb://a:0/db'],
  ['MONGODB_URL', 'mongodb://a:port/db'],
  ['MONGODB_URL', 'mongodb://a b:27017/db'],
  ['MONGODB_URL', ' mongodb://a:27017/db'],
  ['MONGODB_URL', 'mongodb://a:27017/db?replicaSet=rs 0'],
  ['MONGODB_URL', 'mongodb://a:27017:1/db'],
  ['MONGODB_URL', 'mongodb://[::1/db'],
  ['MONGODB_URL', 'mongodb://user:p@ss@a:27017/db'],
  ['MONGODB_URL', 'mongodb+srv://cluster0.example.net:27017/db'],
  ['MONGODB_URL', 'mongodb+srv://a.example.net,b.example.net/db'],
  ['EVENTSTORE_URL', 'http://localhost:2113'],
  ['EVENTSTORE_URL', 'mongodb://localhost:27017'],
  ['EVENTSTORE_URL', 'esdb://n1:2113,n2:2113,?tls=false'],
  ['EVENTSTORE_URL', 'esdb://n1:2113, n2:2113'],
  ['EVENTSTORE_URL', 'esdb+discover://?tls=false'],
  ['EVENTSTORE_URL', 'esdb://n1:-1'],
  ['EVENTSTORE_URL', 'ESDB://eventstore:2113?tls=false'],
  ['REDIS_URL', 'http://localhost:6379'],
  ['REDIS_URL', 'redis://a:6379,b:6379'],
  ['REDIS_URL', 'redis://'],
  ['POSTGRES_URL', 'http://localhost:5432/db'],
  ['POSTGRES_URL', 'postgresql://a:5432,b:5432/db'],
  ['POSTGRES_URL', 'postgresql://'],
  ['POSTGRES_URL', 'postgresql://db:99999/resources'],
  ['POSTGRES_URL', 'postgresql://db/resources?options=-c search_path=x'],
];

function loadingError(env: NodeJS.ProcessEnv): unknown {
  try {
    loadConfig(env);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('store connection strings', () => {
  it.each(accepted)('given %s=%s, then it is accepted as given', (variable, value) => {
    // given
    const env = { [variable]: value };
    // when
    const config = loadConfig(env);
    // then
    expect(config[variable]).toBe(value);
  });

  it.each(refused)('given %s=%j, then loading fails naming the variable', (variable, value) => {
    // given
    const env = { [variable]: value };
    // when
    const error = loadingError(env);
    // then
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual([variable]);
  });

  it.each(['MONGODB_URL', 'EVENTSTORE_URL', 'REDIS_URL', 'POSTGRES_URL'] as const)(
    'given %s empty, then the embedded default applies',
    (variable) => {
      // given
      const env = { [variable]: '' };
      // when
      const config = loadConfig(env);
      // then
      expect(config[variable]).toBeUndefined();
    },
  );

  it.each([
    ['POSTGRES_URL', 'postgresql://svc:Sup3r/Secr3t@db.example.com:5432/resources'],
    ['REDIS_URL', 'redis://:hunter2/xyz@cache:6379'],
    ['MONGODB_URL', 'mongodb://app:pa?ss@mongo:27017/db'],
    ['EVENTSTORE_URL', 'esdb://admin:ch#ange@n1:2113'],
  ])(
    'given %s whose password holds an unencoded / ? or #, then the error says so and repeats no part of it',
    (variable, value) => {
      // when
      const error = loadingError({ [variable]: value });
      // then
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).toMatch(/percent-encode/);
      expect(message).not.toMatch(/Sup3r|hunter2|app:pa|admin:ch/);
    },
  );

  it.each([
    ['esdb://admin:S3cret@n1:2113?tls=false&keepAliveTimout=10000', 'does not know: keepAliveTimout'],
    ['esdb://admin:S3cret@n1:2113?tls=maybe', 'true or false as tls'],
    ['esdb://admin:S3cret@n1:2113?keepAliveInterval=often', 'whole number as keepAliveInterval'],
    ['esdb://admin:S3cret@n1:2113?nodePreference=nearest', 'as nodePreference'],
    ['esdb://admin:S3cret@n1:2113?tlsVerifyCert=false', 'tlsCAFile'],
    ['esdb://admin:S3cret@n1:2113/events?tls=false', 'takes no path'],
    ['esdb://admin:S3cret@n1:2113?tls', 'not key=value'],
    ['esdb://admin:S3cret@n1:2113?throwOnAppendFailure=false', 'throwOnAppendFailure=false'],
    ['esdb://admin:S3cret@[::1]:2113?tls=false', 'reads no [IPv6] address'],
    ['esdb://admin:S3cret@n1:2113,n%2D2:2113', 'reads no [IPv6] address, % or ~'],
    ['esdb://admin:S3cret@n~1:2113', 'reads no [IPv6] address, % or ~'],
  ])(
    'given EVENTSTORE_URL=%s, which the client would print whole or throw with, then the error says why and repeats no secret',
    (value, why) => {
      const error = loadingError({ EVENTSTORE_URL: value });

      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain(why);
      expect((error as ConfigError).message).not.toContain('S3cret');
    },
  );

  it.each([
    'esdb://admin:changeit@n1:2113?tls=false&keepAliveInterval=10000&keepAliveTimeout=10000&defaultDeadline=5000',
    'esdb+discover://cluster.example.com:2113?tls=true&nodePreference=read_only_replica&tlsCAFile=%2Fetc%2Fca.pem',
    'esdb://n1:2113/',
  ])('given EVENTSTORE_URL=%s, options the client reads, then it is accepted', (value) => {
    expect(loadConfig({ EVENTSTORE_URL: value }).EVENTSTORE_URL).toBe(value);
  });

  it('given a host that is no host name and no user part, then the error repeats the host', () => {
    // when
    const error = loadingError({ POSTGRES_URL: 'postgresql://db_1!:5432/resources' });
    // then
    expect((error as ConfigError).message).toContain('"db_1!:5432"');
  });

  it('given a bad value in two variables, then the error names both', () => {
    // given
    const env = { MONGODB_URL: 'mongodb://a,,b/db', EVENTSTORE_URL: 'esdb://n1:2113 ,n2' };
    // when
    const error = loadingError(env);
    // then
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(expect.arrayContaining(['MONGODB_URL', 'EVENTSTORE_URL']));
  });
});
