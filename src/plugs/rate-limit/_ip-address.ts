/**
 * @module
 * Private to the rate limiter: an IP address as text, brought to the one form each address has, so
 * that one client cannot count under many names. Pure string work, no runtime API.
 *
 * - IPv4: four decimal numbers from 0 to 255, without leading zeros (`192.0.2.1`). Other forms some
 *   parsers take (`192.000.002.001`, where a leading zero means octal to some and decimal to others;
 *   one integer, `3221225985`; fewer parts, `192.2.1`) are not addresses here.
 * - IPv6 in any RFC 4291 text form, answered in RFC 5952's (lowercase, no leading zeros, the longest
 *   run of two or more zero groups as `::`); one that holds an IPv4 address (IPv4-mapped
 *   `::ffff:192.0.2.1`, IPv4-compatible `::192.0.2.1`) is answered as that IPv4 address.
 * - Not addresses: a zone (`fe80::1%eth0`, `%25eth0`), a trailing dot, brackets, a port, spaces.
 *
 * The answer is built from numbers, so it never holds on to the (maybe large) header it came from.
 */

/** The longest text form of an address: `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`. */
export const MAX_ADDRESS_LENGTH = 45;

/** The canonical form of an IPv4 or IPv6 address, or `undefined` when `text` is not one. */
export function canonicalAddress(text: string): string | undefined {
  if (text.length > MAX_ADDRESS_LENGTH) return undefined;
  if (!text.includes(":")) {
    const octets = ipv4Octets(text);
    return octets === undefined ? undefined : octets.join(".");
  }
  const groups = ipv6Groups(text);
  return groups === undefined ? undefined : ipv6Text(groups);
}

/** The four octets of a dotted-decimal IPv4 address, or `undefined`. */
function ipv4Octets(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    octets.push(octet);
  }
  return octets;
}

/** The eight 16-bit groups of an IPv6 address in any RFC 4291 text form, or `undefined`. */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const tail = halves.length === 1 || halves[1] === "" ? [] : halves[1]!.split(":");
  // An embedded IPv4 address ends the text and stands for the last two groups.
  const last = halves.length === 1 ? head : tail;
  const dotted = last[last.length - 1]?.includes(".") === true ? last.pop() : undefined;
  const embedded = dotted === undefined ? undefined : ipv4Octets(dotted);
  if ((dotted !== undefined && embedded === undefined) || [...head, ...tail].some((group) => group.includes("."))) return undefined;
  const fromIpv4 = embedded === undefined ? [] : [embedded[0]! * 256 + embedded[1]!, embedded[2]! * 256 + embedded[3]!];
  const given = head.length + tail.length + fromIpv4.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const groups: number[] = [];
  for (const group of [...head, ...Array.from({ length: 8 - given }, () => "0"), ...tail]) {
    if (!/^[0-9A-Fa-f]{1,4}$/.test(group)) return undefined;
    groups.push(Number.parseInt(group, 16));
  }
  return [...groups, ...fromIpv4];
}

/** RFC 5952's text for eight groups; an IPv4-mapped or -compatible address as its IPv4 address. */
function ipv6Text(groups: readonly number[]): string {
  const high = groups.slice(0, 5).every((group) => group === 0);
  const mapped = high && groups[5] === 0xffff;
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  const compatible = high && groups[5] === 0 && (groups[6] !== 0 || groups[7]! > 1);
  if (mapped || compatible) return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  const [start, length] = longestZeroRun(groups);
  const hex = groups.map((group) => group.toString(16));
  if (length < 2) return hex.join(":");
  return `${hex.slice(0, start).join(":")}::${hex.slice(start + length).join(":")}`;
}

/** Where the first longest run of zero groups starts, and how long it is. */
function longestZeroRun(groups: readonly number[]): [number, number] {
  let best: [number, number] = [0, 0];
  let start = -1;
  groups.forEach((group, index) => {
    if (group !== 0) {
      start = -1;
      return;
    }
    if (start === -1) start = index;
    if (index - start + 1 > best[1]) best = [start, index - start + 1];
  });
  return best;
}
