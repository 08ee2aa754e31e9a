import ipaddr from 'ipaddr.js';

/**
 * The address a client's wrong-secret budgets are counted under. An IPv4 address is itself (an
 * IPv4-mapped IPv6 address, `::ffff:203.0.113.7`, is the IPv4 it maps). An IPv6 client gets a whole
 * /64 from its provider and can pick a new address in it for every request, so its budgets are
 * counted for the /64 (`2001:db8:1:2::/64`): a new address in the same network is the same client.
 * Anything that does not parse is counted as given.
 */
export function budgetAddressOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
