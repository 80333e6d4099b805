/**
 * @module
 * Private: what a `Host` (or forwarded host) value may hold before the service writes it into a URL.
 */

// A DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port: nothing that
// could end a URL's authority (`/`, `?`, `#`, `@`) or a `Link` target (`>`).
const HOST = /^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** Whether a host value is a plain host name or IP address with an optional port. */
export function isHostValue(value: string): boolean {
  return HOST.test(value);
}
