import { ConfigError, loadConfig } from '../../src/config/config';

/** TRUST_PROXY becomes Express's `trust proxy` value; what Express would misread is refused at start. */
describe('TRUST_PROXY', () => {
  it('given nothing, then no proxy is trusted: the TCP peer is the client', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.1.7', '10.0.0.0/8,192.168.1.7'],
    ['loopback,fd00::/8', 'loopback,fd00::/8'],
    ['172.16.0.0/255.240.0.0', '172.16.0.0/255.240.0.0'],
  ])('given TRUST_PROXY=%s, then Express is given %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['yes', 'proxy.example.org', '10.0.0.0/33', '10.0.0.1/8/1', '-1', 'loopback,'])(
    'given TRUST_PROXY=%s, then loading fails naming the variable',
    (value) => {
      let error: unknown;
      try {
        loadConfig({ TRUST_PROXY: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual(['TRUST_PROXY']);
    },
  );
});
