// Where a webhook may go: a public address only, unless WEBHOOK_ALLOW_PRIVATE=true. A receiver on
// loopback, a private network or link-local would let anyone who may create an endpoint make the
// portal knock on its own internal services (SSRF). The check is made when an endpoint is created
// and again on the address each attempt actually connects to, so a name that resolves to a public
// address at creation and to a private one later (DNS rebinding) is refused then.
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';

const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
// Kept apart: a BlockList answers an IPv4 address as inside ::ffff:0:0/96, so the IPv6 list alone
// would hold every IPv4 address.
const mappedV4 = new BlockList();
mappedV4.addSubnet('::ffff:0:0', 96, 'ipv6');
const V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const V6: [string, number][] = [
  ['::', 127], // unspecified and loopback
  ['64:ff9b::', 96], // NAT64: the IPv4 address inside is not checked, so none passes
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];
for (const [net, prefix] of V4) blockedV4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) blockedV6.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address (v4 or v6, as text) is one a webhook must not go to. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return blockedV4.check(address, 'ipv4');
  // An IPv4-mapped address (::ffff:10.0.0.1) is judged by the IPv4 address it carries.
  if (mappedV4.check(address, 'ipv6')) return blockedV4.check(embeddedV4(address), 'ipv4');
  return blockedV6.check(address, 'ipv6');
}

/** The IPv4 address in the last 32 bits of an IPv6 address, however it was written. */
function embeddedV4(address: string): string {
  const groups = new URL(`http://[${address}]`).hostname.slice(1, -1).split(':');
  const [high, low] = groups.slice(-2).map((g) => parseInt(g || '0', 16));
  return [high! >> 8, high! & 255, low! >> 8, low! & 255].join('.');
}

/** A refusal a person reads: the address, and why. */
export class PrivateAddressRefused extends Error {
  constructor(host: string, address: string) {
    super(
      `The address ${host === address ? address : `${host} (${address})`} is on a loopback, private or link-local network; ` +
        'the portal sends webhooks only to public addresses',
    );
    this.name = 'PrivateAddressRefused';
  }
}

/** The host of a URL as net and dns take it (IPv6 literals without their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * A `lookup` for http(s).request that answers only public addresses: every address the name
 * resolves to must be public, or the connection is refused before it is made.
 */
export const publicOnlyLookup = ((hostname: string, options: dns.LookupOptions, callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) return callback(new PrivateAddressRefused(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}) as unknown as typeof dns.lookup;

/** Resolves a host name as an attempt would and throws PrivateAddressRefused for a private one. */
export async function checkPublicHost(url: URL): Promise<void> {
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) throw new PrivateAddressRefused(host, host);
    return;
  }
  const addresses = await dns.promises.lookup(host, { all: true });
  const refused = addresses.find((a) => isPrivateAddress(a.address));
  if (refused) throw new PrivateAddressRefused(host, refused.address);
}
