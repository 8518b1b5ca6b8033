/** What counts as this machine, for a proxy that asks no token. */
import { isIP } from 'node:net';

/** Loopback only: `localhost` (and its subdomains), 127.0.0.0/8, ::1. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1';
}

/** The host name of a `Host` header (`127.0.0.1:8787`, `[::1]:8787`, `localhost`). */
function hostName(header: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1] ?? '';
  return header.replace(/:\d+$/, '');
}

/**
 * Why a request must be refused by a proxy that asks no token, or undefined: its `Host` names another
 * machine (DNS rebinding), or a browser sent it from a page that is not on this machine.
 */
export function browserRefusal(headers: Headers, allowedHosts: readonly string[]): string | undefined {
  const host = headers.get('host');
  if (host !== null) {
    const name = hostName(host.trim());
    if (!isLoopback(name) && !allowedHosts.includes(name))
      return 'this ctxkit proxy asks no token, so it answers only requests to this machine (Host is not a loopback name); start it with --token to serve other hosts';
  }
  const origin = headers.get('origin');
  if (origin !== null && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      return 'a request from a web page that is not on this machine is refused (Origin)';
    }
    if (!isLoopback(originHost))
      return 'a request from a web page that is not on this machine is refused (Origin)';
  } else if (origin === 'null') return 'a request from an opaque web origin is refused (Origin: null)';
  return undefined;
}
