/*
 * Connection strings of the production stores. WHATWG URLs (and so `z.url()`) refuse the
 * multi-host authorities of replica sets and clusters (`mongodb://a:27017,b:27017/db`,
 * `esdb://n1:2113,n2:2113`), so these are checked by scheme instead:
 *
 *   scheme://[user[:password]@]host[:port][,host[:port]...][/path][?query]
 *
 * Each host is a DNS name, an IPv4 address or a bracketed IPv6 address; each port is 1-65535;
 * nothing may contain whitespace. What a scheme allows beyond that is in its rule below.
 */

export type ConnectionStringRule = {
  readonly schemes: readonly string[];
  /** The most hosts the scheme takes (an SRV record or a Redis server is one name). */
  readonly maxHosts?: (scheme: string) => number;
  /** Whether a host may carry a port under this scheme. */
  readonly allowsPort?: (scheme: string) => boolean;
};

export const mongodbConnectionString: ConnectionStringRule = {
  schemes: ['mongodb', 'mongodb+srv'],
  // The driver resolves one SRV name into the members, and refuses a port on it.
  maxHosts: (scheme) => (scheme === 'mongodb+srv' ? 1 : Number.POSITIVE_INFINITY),
  allowsPort: (scheme) => scheme !== 'mongodb+srv',
};

export const eventStoreConnectionString: ConnectionStringRule = {
  schemes: ['esdb', 'esdb+discover'],
};

/** node-postgres reaches one host (it takes no list of hosts, unlike libpq). */
export const postgresConnectionString: ConnectionStringRule = {
  schemes: ['postgres', 'postgresql'],
  maxHosts: () => 1,
};

export const redisConnectionString: ConnectionStringRule = {
  schemes: ['redis', 'rediss'],
  maxHosts: () => 1,
};

// A DNS name (labels of letters, digits, '-' and '_', as container names use), percent-encoded
// characters allowed (MongoDB's Unix socket paths), or an IPv4 address, which matches the same.
const hostName = /^(?:[A-Za-z0-9_~-]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_~-]|%[0-9A-Fa-f]{2})+)*\.?$/;
const ipv6 = /^\[[0-9A-Fa-f:.]+(?:%25[A-Za-z0-9._~-]+)?\]$/;
const port = /^[0-9]{1,5}$/;
const userInfo = /^(?:[A-Za-z0-9._~!$&'()*+,;=:-]|%[0-9A-Fa-f]{2})*$/;

function validHost(host: string, allowsPort: boolean): boolean {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(host);
  if (!match) return false;
  const [, name = '', portText] = match;
  if (!(ipv6.test(name) || hostName.test(name))) return false;
  if (portText === undefined) return true;
  if (!allowsPort || !port.test(portText)) return false;
  const value = Number(portText);
  return value >= 1 && value <= 65535;
}

/** Undefined when `value` is a connection string the rule accepts, else why not. */
export function connectionStringProblem(value: string, rule: ConnectionStringRule): string | undefined {
  if (/\s/.test(value)) return 'must not contain whitespace';
  const schemeEnd = value.indexOf('://');
  const scheme = schemeEnd < 0 ? '' : value.slice(0, schemeEnd);
  const expected = rule.schemes.map((s) => `${s}://`).join(' or ');
  if (!rule.schemes.includes(scheme)) return `must start with ${expected}`;
  const rest = value.slice(schemeEnd + 3);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !userInfo.test(authority.slice(0, at))) return 'has an invalid user or password (percent-encode it)';
  const hostList = authority.slice(at + 1);
  if (hostList === '') return 'names no host';
  const hosts = hostList.split(',');
  const maxHosts = rule.maxHosts?.(scheme) ?? Number.POSITIVE_INFINITY;
  if (hosts.length > maxHosts) return `takes ${maxHosts} host under ${scheme}://`;
  const allowsPort = rule.allowsPort?.(scheme) ?? true;
  const bad = hosts.find((host) => !validHost(host, allowsPort));
  if (bad === undefined) return undefined;
  // A password holding an unencoded / ? or # ends the authority early, and its first part reads
  // as the host: a value with a user part never has its host repeated, lest a password be logged.
  if (value.includes('@'))
    return 'has an invalid host[:port], or a password with an unencoded / ? # or @ (percent-encode it)';
  return `has an invalid host[:port] "${bad}"`;
}
