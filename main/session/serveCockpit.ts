// The API server of a session, on the options the operator gave: host, port, token, TLS.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { newToken } from '../api/access.ts';
import type { CockpitService } from '../api/cockpitService.ts';
import { startApiServer, type ApiServer } from '../api/server.ts';
import { REPO_ROOT } from '../core/runtime/repoRoot.ts';
import type { StartArgs } from './startArgs.ts';

/** The API server on the options the operator gave: host, port, token, TLS; the UI's address printed. */
export async function serveCockpit(api: CockpitService, args: StartArgs, log: Logger): Promise<ApiServer> {
  const server = await openCockpitServer(api, args, log);
  process.stdout.write(`Reins UI: ${server.uiUrl}\n`);
  return server;
}

/** The same server, its address not printed (the soak serves it with no UI attached). */
export function openCockpitServer(api: CockpitService, args: StartArgs, log: Logger): Promise<ApiServer> {
  return startApiServer(api, {
    host: args.host,
    port: args.port,
    token: args.token ?? newToken(),
    staticDir: `${REPO_ROOT}renderer/dist`,
    tls: args.tlsCert && args.tlsKey ? { cert: readFileSync(args.tlsCert), key: readFileSync(args.tlsKey) } : undefined,
    log,
  });
}
