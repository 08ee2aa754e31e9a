/**
 * Hosts of a test's own, each a network namespace: a service link to a bridge in the root
 * namespace (where the hosts reach each other: the database, the API hosts, the projectors) and,
 * for a service host, a client link straight to the root namespace (where the test asks it). A
 * host is cut off from the others by taking its service link down; the test still reaches it.
 *
 * The subnets' third octet is random, so two runs on one machine do not route into each other.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Why no namespaces can be made here, or undefined when they can. */
export function namespacesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const probe = `pgf-probe-${randomBytes(3).toString('hex')}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'delete', probe);
    return undefined;
  } catch (error) {
    return `ip netns add failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

export type Host = {
  readonly namespace: string;
  /** Its address on the bridge, where the other hosts reach it. */
  readonly serviceAddress: string;
  /** Its address on the client link, where the test reaches it (the service address for the database). */
  readonly clientAddress: string;
};

export type TestNetwork = {
  /** `<prefix>.0/24`, the bridge's subnet. */
  readonly subnet: string;
  host(name: string, options?: { clientLink?: boolean }): Host;
  /** Takes the host's service link down (`up: false`) or brings it back. */
  link(host: Host, up: boolean): void;
  cleanup(): void;
};

export function testNetwork(): TestNetwork {
  const tag = randomBytes(2).toString('hex');
  const octet = randomInt(1, 250);
  const prefix = `10.77.${octet}`;
  const bridge = `pgf${tag}br`;
  const namespaces: string[] = [];
  const links: string[] = [bridge];
  const serviceLinkOf = new Map<string, string>();
  let count = 0;
  ip('link', 'add', 'name', bridge, 'type', 'bridge');
  ip('addr', 'add', `${prefix}.254/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  return {
    subnet: `${prefix}.0/24`,
    host(name, { clientLink = true } = {}) {
      count += 1;
      const namespace = `pgf-${tag}-${name}`;
      ip('netns', 'add', namespace);
      namespaces.push(namespace);
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      const service = `pgf${tag}${count}s`;
      ip('link', 'add', service, 'type', 'veth', 'peer', 'name', 'svc0', 'netns', namespace);
      links.push(service);
      ip('link', 'set', service, 'master', bridge);
      ip('link', 'set', service, 'up');
      const serviceAddress = `${prefix}.${count}`;
      ip('-n', namespace, 'addr', 'add', `${serviceAddress}/24`, 'dev', 'svc0');
      ip('-n', namespace, 'link', 'set', 'svc0', 'up');
      serviceLinkOf.set(namespace, service);
      if (!clientLink) return { namespace, serviceAddress, clientAddress: serviceAddress };
      const client = `pgf${tag}${count}c`;
      ip('link', 'add', client, 'type', 'veth', 'peer', 'name', 'cli0', 'netns', namespace);
      links.push(client);
      const [rootSide, hostSide] = [`10.78.${octet}.${count * 4 + 1}`, `10.78.${octet}.${count * 4 + 2}`];
      ip('addr', 'add', `${rootSide}/30`, 'dev', client);
      ip('link', 'set', client, 'up');
      ip('-n', namespace, 'addr', 'add', `${hostSide}/30`, 'dev', 'cli0');
      ip('-n', namespace, 'link', 'set', 'cli0', 'up');
      return { namespace, serviceAddress, clientAddress: hostSide };
    },
    link(host, up) {
      ip('link', 'set', serviceLinkOf.get(host.namespace)!, up ? 'up' : 'down');
    },
    cleanup() {
      for (const namespace of namespaces) {
        try {
          ip('netns', 'delete', namespace);
        } catch {
          // already gone
        }
      }
      for (const link of links) {
        try {
          ip('link', 'delete', link);
        } catch {
          // went with its namespace's peer
        }
      }
    },
  };
}
