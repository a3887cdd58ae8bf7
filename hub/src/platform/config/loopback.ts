/**
 * Is this listen host reachable only from the machine itself? Pure. 127.0.0.0/8, ::1 and
 * `localhost`: the only hosts the hub may serve in plain HTTP (docs/security.md "TLS by
 * default"). `0.0.0.0`, `::` and every named or LAN address are not.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h.replace(/^::ffff:/, ''));
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}
