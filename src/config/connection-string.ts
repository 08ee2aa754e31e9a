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
  /**
   * Why what follows the hosts is refused, if it is; never repeating a value (it may be a secret).
   * Where absent, the driver reads it as it will.
   */
  readonly tailProblem?: (tail: string) => string | undefined;
  /** Why a host that has the general shape is still refused by the scheme's client, if it is. */
  readonly hostProblem?: (host: string) => string | undefined;
};

export const mongodbConnectionString: ConnectionStringRule = {
  schemes: ['mongodb', 'mongodb+srv'],
  // The driver resolves one SRV name into the members, and refuses a port on it.
  maxHosts: (scheme) => (scheme === 'mongodb+srv' ? 1 : Number.POSITIVE_INFINITY),
  allowsPort: (scheme) => scheme !== 'mongodb+srv',
};

/**
 * The options the EventStoreDB client reads from its connection string, flat-cased as it compares
 * them (case, `-` and `_` ignored), with the values each takes.
 */
const ESDB_OPTIONS: Readonly<Record<string, 'integer' | 'boolean' | 'text' | 'nodePreference'>> = {
  usercertfile: 'text',
  userkeyfile: 'text',
  maxdiscoverattempts: 'integer',
  connectionname: 'text',
  defaultdeadline: 'integer',
  discoveryinterval: 'integer',
  gossiptimeout: 'integer',
  nodepreference: 'nodePreference',
  tls: 'boolean',
  tlsverifycert: 'boolean',
  tlscafile: 'text',
  throwonappendfailure: 'boolean',
  keepaliveinterval: 'integer',
  keepalivetimeout: 'integer',
};
const flat = (text: string): string => text.trim().toLowerCase().replace(/[_-]/g, '');

/**
 * The client prints its whole connection string, password included, to the console for an option
 * it does not know or ignores, and puts it in the message of the error it throws for one it cannot
 * read: every option is checked here first, so that it never gets to.
 */
function esdbOptionsProblem(tail: string): string | undefined {
  if (tail === '') return undefined;
  if (!tail.startsWith('?')) return 'takes no path: options follow the hosts as ?key=value&key=value';
  for (const pair of tail.slice(1).split('&')) {
    const [key = '', value, ...more] = pair.split('=');
    const kind = ESDB_OPTIONS[flat(key)];
    if (value === undefined || value === '' || more.length > 0 || /[?#]/.test(pair))
      return 'has an option that is not key=value';
    if (!kind) return `has an option the EventStoreDB client does not know: ${key.slice(0, 64)}`;
    if (kind === 'integer' && !/^-?[0-9]+$/.test(value)) return `takes a whole number as ${key}`;
    if (kind === 'boolean' && value !== 'true' && value !== 'false') return `takes true or false as ${key}`;
    if (kind === 'nodePreference' && !['leader', 'follower', 'readonlyreplica', 'random'].includes(flat(value)))
      return `takes leader, follower, readOnlyReplica or random as ${key}`;
    // Resolved instead of thrown, a lost compare-and-set would read as a write: every conflict
    // (a stream's revision, the log's id, an idempotency claim) relies on the throw.
    if (flat(key) === 'throwonappendfailure' && value === 'false')
      return 'has throwOnAppendFailure=false: the service needs a failed append to throw';
    if (flat(key) === 'tlsverifycert' && value === 'false')
      return 'has tlsVerifyCert=false, which the EventStoreDB client ignores: give the CA with tlsCAFile';
  }
  return undefined;
}

export const eventStoreConnectionString: ConnectionStringRule = {
  schemes: ['esdb', 'esdb+discover'],
  tailProblem: esdbOptionsProblem,
  // The client's parser stops a host at [ ] % or ~ and throws with the whole string, password
  // included, on the error (dist/Client/parseConnectionString.js, parseHosts).
  hostProblem: (host) =>
    /[[\]%~]/.test(host)
      ? 'takes DNS names and IPv4 addresses as hosts: the EventStoreDB client reads no [IPv6] address, % or ~'
      : undefined,
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

/** A connection string cut at the places the shape above names; the hosts as one comma-separated text. */
export type ConnectionStringParts = {
  readonly scheme: string;
  /** `user[:password]`, or null where there is no `@`. */
  readonly userInfo: string | null;
  readonly hosts: string;
  /** `/path`, or empty. */
  readonly path: string;
  /** Everything after the hosts: the path, the query and the fragment. */
  readonly tail: string;
};

/** The parts of `value`; the scheme empty where it has none. */
export function connectionStringParts(value: string): ConnectionStringParts {
  const schemeEnd = value.indexOf('://');
  const rest = schemeEnd < 0 ? value : value.slice(schemeEnd + 3);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const queryStart = tail.search(/[?#]/);
  return {
    scheme: schemeEnd < 0 ? '' : value.slice(0, schemeEnd),
    userInfo: at < 0 ? null : authority.slice(0, at),
    hosts: authority.slice(at + 1),
    path: queryStart < 0 ? tail : tail.slice(0, queryStart),
    tail,
  };
}

/** Undefined when `value` is a connection string the rule accepts, else why not. */
export function connectionStringProblem(value: string, rule: ConnectionStringRule): string | undefined {
  if (/\s/.test(value)) return 'must not contain whitespace';
  const { scheme, userInfo: user, hosts: hostList, tail } = connectionStringParts(value);
  const expected = rule.schemes.map((s) => `${s}://`).join(' or ');
  if (!rule.schemes.includes(scheme)) return `must start with ${expected}`;
  if (user !== null && !userInfo.test(user)) return 'has an invalid user or password (percent-encode it)';
  if (hostList === '') return 'names no host';
  const hosts = hostList.split(',');
  const maxHosts = rule.maxHosts?.(scheme) ?? Number.POSITIVE_INFINITY;
  if (hosts.length > maxHosts) return `takes ${maxHosts} host under ${scheme}://`;
  const allowsPort = rule.allowsPort?.(scheme) ?? true;
  const bad = hosts.find((host) => !validHost(host, allowsPort));
  if (bad === undefined) {
    for (const host of hosts) {
      const problem = rule.hostProblem?.(host);
      if (problem) return problem;
    }
    return rule.tailProblem?.(tail.replace(/\/+$/, ''));
  }
  // A password holding an unencoded / ? or # ends the authority early, and its first part reads
  // as the host: a value with a user part never has its host repeated, lest a password be logged.
  if (value.includes('@'))
    return 'has an invalid host[:port], or a password with an unencoded / ? # or @ (percent-encode it)';
  return `has an invalid host[:port] "${bad}"`;
}
