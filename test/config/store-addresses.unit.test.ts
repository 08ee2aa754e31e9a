import { addressOf } from '../../src/config/store-addresses';

/** A store's address as the CLI and a failed start print it: hosts and path kept, every credential left out. */
describe('addressOf', () => {
  it.each([
    [
      'postgresql://app:s%40cret@db.example.com:5432/resources?sslmode=require',
      'postgresql://db.example.com:5432/resources',
    ],
    ['postgres://db/resources?password=s3cret', 'postgres://db/resources'],
    ['redis://:s3cret@cache:6379/2', 'redis://cache:6379/2'],
    ['rediss://user:s3cret@cache.example.com:6380', 'rediss://cache.example.com:6380'],
    [
      'mongodb://app:s%40cret@a.example.com:27017,b.example.com:27018/db?replicaSet=rs0&authSource=admin',
      'mongodb://a.example.com:27017,b.example.com:27018/db',
    ],
    ['esdb://admin:changeit@n1:2113,n2:2113?tls=false', 'esdb://n1:2113,n2:2113'],
    ['postgresql://[::1]:5433/resources', 'postgresql://[::1]:5433/resources'],
    ['postgresql://localhost', 'postgresql://localhost'],
  ])('given %s, then %s', (given, shown) => {
    expect(addressOf(given)).toBe(shown);
  });
});
