import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration', () => {
  it('given no variables, then the embedded defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      DATA_DIR: './data',
      API_KEY_CAP: 10,
      RATE_LIMIT_PER_HOUR: 1000,
      UPLOAD_MAX_MB: 3,
      UPLOAD_BIG_MAX_MB: 100,
    });
    expect(config.MONGODB_URL).toBeUndefined();
  });

  it('given OPERATOR_TOKENS, then each name with its token, a name keeping its spaces; none by default', () => {
    expect(loadConfig({}).OPERATOR_TOKENS).toEqual([]);
    expect(
      loadConfig({
        OPERATOR_TOKENS:
          ' Ada Lovelace=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxa , grace=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxb',
      }).OPERATOR_TOKENS,
    ).toEqual([
      { name: 'Ada Lovelace', token: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxa' },
      { name: 'grace', token: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxb' },
    ]);
  });

  it('given no READ_MEMO, then answers are remembered; given off, then not', () => {
    expect(loadConfig({}).READ_MEMO).toBe('on');
    expect(loadConfig({ READ_MEMO: 'off' }).READ_MEMO).toBe('off');
  });

  it('given no MONGO_QUERY_TIMEOUT_MS, then MongoDB reads are bounded at 5 s; given one, then that bound', () => {
    expect(loadConfig({}).MONGO_QUERY_TIMEOUT_MS).toBe(5000);
    expect(loadConfig({ MONGO_QUERY_TIMEOUT_MS: '1500' }).MONGO_QUERY_TIMEOUT_MS).toBe(1500);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['API_KEY_CAP', '0'],
    ['MONGO_QUERY_TIMEOUT_MS', '0'],
    ['MONGO_QUERY_TIMEOUT_MS', '2.5'],
    ['MONGO_QUERY_TIMEOUT_MS', 'soon'],
    ['MONGODB_URL', 'not a url'],
    ['AUTH_JWT_SECRET', 'short'],
    ['NODE_ENV', 'staging'],
    ['READ_MEMO', 'sometimes'],
    ['OPERATOR_TOKENS', 'ada=short'],
    ['OPERATOR_TOKENS', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['OPERATOR_TOKENS', 'ada=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,ada=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy'],
    ['OPERATOR_TOKENS', 'ada=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,grace=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['SHUTDOWN_LISTEN_SECONDS', '-1'],
  ])('given %s=%s, then loading fails naming the variable', (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual([variable]);
  });

  it('given NODE_ENV=production without secrets, then it refuses to start', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (e) {
      expect((e as ConfigError).variables).toEqual(expect.arrayContaining(['DIRECTORY_SYNC_TOKEN', 'AUTH_JWT_SECRET']));
    }
  });

  it('given NODE_ENV=production with explicit secrets, then it loads', () => {
    const secret = 'k3J9x-Qm2_vT8wLp4ZrN7sYb1HdC6fGa';
    expect(loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: secret, DIRECTORY_SYNC_TOKEN: secret }).NODE_ENV).toBe(
      'production',
    );
  });

  describe('one production backend', () => {
    const postgres = 'postgresql://app@db:5432/resources';

    it('given POSTGRES_URL alone, then it loads', () => {
      expect(loadConfig({ POSTGRES_URL: postgres }).POSTGRES_URL).toBe(postgres);
    });

    it.each([
      [{ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' }, ['POSTGRES_URL', 'EVENTSTORE_URL']],
      [{ MONGODB_URL: 'mongodb://mongo:27017/resources' }, ['POSTGRES_URL', 'MONGODB_URL']],
      [
        { EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false', MONGODB_URL: 'mongodb://mongo:27017/resources' },
        ['POSTGRES_URL', 'EVENTSTORE_URL', 'MONGODB_URL'],
      ],
    ])('given POSTGRES_URL with %j, then it refuses to start naming them', (others, named) => {
      let error: unknown;
      try {
        loadConfig({ POSTGRES_URL: postgres, ...others });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual(named);
    });

    it('given POSTGRES_URL empty beside EVENTSTORE_URL and MONGODB_URL, then they load as before', () => {
      const config = loadConfig({
        POSTGRES_URL: '',
        EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
        MONGODB_URL: 'mongodb://mongo:27017/resources',
      });
      expect(config.POSTGRES_URL).toBeUndefined();
    });
  });
});
