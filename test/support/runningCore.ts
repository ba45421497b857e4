// Starts the real core in-process on a free loopback port: the simulated robot in real time, the
// control loop and the API server. For integration tests that talk HTTP and WebSocket to it.
import { pino } from 'pino';
import { CockpitService } from '../../main/api/cockpitService.ts';
import { RobotConnections, type OpenRobot } from '../../main/api/robotConnections.ts';
import { startApiServer, type ApiServer } from '../../main/api/server.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import type { OpenedRobot } from '../../main/links/robotAddress.ts';
import { FoxgloveLink } from '../../main/links/foxglove/foxgloveLink.ts';
import { openWebSocketLink } from '../../main/session/linkParts.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { createSimLink, startRealtime, type LockstepLink } from '../../main/sim/lockstepLink.ts';
import type { SimRobot } from '../../main/sim/simRobot.ts';
import { testEncoderManifest } from './testEncoders.ts';

export interface RunningCore {
  server: ApiServer;
  loop: ControlLoop;
  connections: RobotConnections;
  token: string;
  baseUrl: string;
  socketUrl: (token?: string) => string;
  origin: string;
  /** The simulated robot the core starts with, for ground truth (how fast it really moves). */
  robot: SimRobot;
  close(): Promise<void>;
}

export interface CoreOptions {
  staticDir?: string;
  /** How long a robot connected at runtime has to answer. */
  connectTimeoutMs?: number;
}

/** The in-process sim in real time, as the CLI would open it (minus its own process). */
function openSimInProcess(): OpenedRobot & { link: LockstepLink } {
  const link = createSimLink({});
  const stopRobot = startRealtime(link);
  return {
    link,
    async close() {
      stopRobot();
      await link.close();
    },
  };
}

const openRobot: OpenRobot = async (spec, topics) => {
  if (spec.kind === 'sim') return openSimInProcess();
  if (spec.kind === 'websocket') {
    const link = openWebSocketLink({ url: spec.url, topics });
    return { link, close: () => link.close() };
  }
  if (spec.kind === 'foxglove') {
    const link = new FoxgloveLink({ url: spec.url, topics });
    return { link, close: () => link.close() };
  }
  throw new Error(`the test core opens no serial robots (${spec.path})`);
};

export async function startCore(options: CoreOptions = {}): Promise<RunningCore> {
  const { staticDir = 'renderer/dist', connectTimeoutMs } = options;
  const opened = openSimInProcess();
  const link = new SwitchableLink(opened.link);
  const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
  const connections = new RobotConnections(link, { robot: 'sim', opened }, { openRobot, connectTimeoutMs, driver: () => loop.driver() });
  loop.start();
  const token = 'test-token-0123456789abcdef';
  const server = await startApiServer(new CockpitService(link, loop, Date.now, { connections }), {
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
    connections,
    token,
    baseUrl,
    origin: baseUrl,
    robot: opened.link.robot,
    socketUrl: (given = token) => `ws://127.0.0.1:${server.port}/api/socket?token=${encodeURIComponent(given)}`,
    async close() {
      await loop.close();
      await server.close();
      await link.close();
      await connections.close();
    },
  };
}
