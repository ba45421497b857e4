// Who may connect: a bearer token for /api/*, the token in the query plus an allowed Origin for
// WebSockets. Comparisons are constant-time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function tokensMatch(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

/** The origins a browser shows when it loaded the UI from this server. */
export function ownOrigins(host: string, port: number, secure: boolean): string[] {
  const scheme = secure ? 'https' : 'http';
  const hosts = host === '127.0.0.1' || host === 'localhost' ? ['127.0.0.1', 'localhost'] : [host];
  return hosts.map((name) => `${scheme}://${name.includes(':') ? `[${name}]` : name}:${port}`);
}
