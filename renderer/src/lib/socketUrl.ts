// Where the core's socket is, and the token that opens it. The token arrives in the URL's hash
// (`#token=…`, never sent to a server) and leaves the visible URL as soon as it has been read.
import { Paths } from './contract.ts';

export function tokenFromHash(hash: string): string | undefined {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token');
  return token ? token : undefined;
}

/** The hash with the token taken out, keeping anything else it carried ('' when nothing is left). */
export function hashWithoutToken(hash: string): string {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  params.delete('token');
  const rest = params.toString();
  return rest ? `#${rest}` : '';
}

export function coreSocketUrl(page: { protocol: string; host: string }, token: string): string {
  const scheme = page.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${page.host}${Paths.socket}?token=${encodeURIComponent(token)}`;
}
