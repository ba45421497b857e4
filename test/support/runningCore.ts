// Starts the real core in-process on a free loopback port: the simulated robot in real time, the
// control loop and the API server. For integration tests that talk HTTP and WebSocket to it.
import { pino } from 'pino';
import { CockpitService } from '../../main/api/cockpitService.ts';
import { startApiServer, type ApiServer } from '../../main/api/server.ts';
import { createControlLoop } from '../../main/cli/wiring.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { createSimLink, startRealtime } from '../../main/sim/lockstepLink.ts';

export interface RunningCore {
  server: ApiServer;
  loop: ControlLoop;
  token: string;
  baseUrl: string;
  socketUrl: (token?: string) => string;
  origin: string;
  close(): Promise<void>;
}

export async function startCore(staticDir = 'renderer/dist'): Promise<RunningCore> {
  const link = createSimLink({});
  const stopRobot = startRealtime(link);
  const loop = createControlLoop(link);
  loop.start();
  const token = 'test-token-0123456789abcdef';
  const server = await startApiServer(new CockpitService(link, loop), {
    host: '127.0.0.1',
    port: 0,
    token,
    staticDir,
    log: pino({ level: 'silent' }),
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  return {
    server,
    loop,
    token,
    baseUrl,
    origin: baseUrl,
    socketUrl: (given = token) => `ws://127.0.0.1:${server.port}/api/socket?token=${encodeURIComponent(given)}`,
    async close() {
      loop.close();
      await server.close();
      stopRobot();
      await link.close();
    },
  };
}
