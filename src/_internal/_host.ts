/**
 * @module
 * Private: what a `Host` (or forwarded host) value may hold before the service writes it into a URL.
 */

// A DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port: nothing that
// could end a URL's authority (`/`, `?`, `#`, `@`) or a `Link` target (`>`).
const HOST = /^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** Whether a host value is a plain host name or IP address with an optional port from 0 to 65535. */
export function isHostValue(value: string): boolean {
  const match = HOST.exec(value);
  // A port past 65535 would make every URL written with it invalid (`new URL` refuses it).
  return match !== null && Number(match[1]?.slice(1) ?? match[2]?.slice(1) ?? 0) <= 65535;
}

/**
 * `isHostValue` remembering the last value it found sound: a server's requests name one host, checked
 * twice each (the `Host` header and the URL's origin), so most checks are one comparison:
 * `_lastSoundHostCheck` (measured in bench/RESULTS.md, issue 53). It holds a string, which no answer can change.
 */
export function _lastSoundHostCheck(): (value: string) => boolean {
  let last: string | undefined;
  return (value) => {
    if (value === last) return true;
    const sound = isHostValue(value);
    if (sound) last = value;
    return sound;
  };
}
