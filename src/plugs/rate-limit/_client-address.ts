/**
 * @module
 * Private to the rate limiter: the address a request without a valid key is counted under. The
 * connection's peer address, as the server passes it; behind a trusted proxy, the client address
 * the proxy forwarded in the one header the app trusts (`PlugSetup.forwardedFor`), as the origin
 * is taken.
 *
 * Every address is counted in its one canonical form (`_ip-address.ts`), so a client cannot get a
 * fresh limit by spelling its address another way, and the table keeps short fresh strings only,
 * never a part of a large header. Anything that is not an address counts as one client, `unknown`.
 * IPv6 addresses are counted by their /64 prefix: one host usually holds a whole /64, so counting
 * each address would give it 2^64 separate limits. IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`,
 * as Node reports IPv4 peers on a dual-stack socket) count as the IPv4 address.
 */
import type { ConnectionInfo } from "../../types.ts";
import { canonicalAddress } from "./_ip-address.ts";

/** The address the server saw the request come from, when it says. */
export function peerAddress(request: Request, connection: ConnectionInfo | undefined): string | undefined {
  // Duck-typed: a host may pass anything as the second argument (a Worker passes its `env`).
  const hostname = connection?.remoteAddr?.hostname;
  if (typeof hostname === "string") return hostname;
  const address = typeof connection?.requestIP === "function" ? connection.requestIP(request)?.address : undefined;
  return typeof address === "string" ? address : undefined;
}

/** The address to count a request under: the one a trusted proxy forwarded, else the peer's; `"unknown"` when neither is known. */
export function clientAddress(forwarded: string | undefined, peer: string | undefined): string {
  return countedAs(forwarded ?? peer);
}

/** The address as counted: IPv4 canonical, IPv6 as its /64 prefix; anything that is not an address as `unknown`. */
function countedAs(text: string | undefined): string {
  const address = text === undefined ? undefined : canonicalAddress(text);
  if (address === undefined) return "unknown";
  if (!address.includes(":")) return address;
  const groups = ipv6Groups(address);
  return groups === undefined ? "unknown" : `${groups.slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded and leading zeros dropped; `undefined` if it is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const tail = halves.length === 1 || halves[1] === "" ? [] : halves[1]!.split(":");
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array.from({ length: missing }, () => "0"), ...tail];
  return groups.every(isHexGroup) ? groups.map((group) => Number.parseInt(group, 16).toString(16)) : undefined;
}

/** Whether a group is one to four hexadecimal digits. */
function isHexGroup(group: string): boolean {
  if (group.length === 0 || group.length > 4) return false;
  for (let i = 0; i < group.length; i++) {
    const code = group.charCodeAt(i);
    if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false;
  }
  return true;
}
