// Opens the link to the robot named by `--robot`: the built-in simulated robot (its own process,
// over rosbridge), a bridge at a ws:// address (rosbridge or foxglove_bridge, whichever answers), a
// foxglove server, or a serial device.
import type { Logger } from 'pino';
import type { TopicMap } from '../core/link.ts';
import type { OpenedRobot, RobotSpec } from '../links/robotAddress.ts';
import { openFoxgloveLink, openSerialLink, openWebSocketLink, type CommandStampOptions } from './linkParts.ts';
import { startSimProcess } from './simProcess.ts';

export type { OpenedRobot };

/**
 * A real robot's link is returned at once and keeps connecting in the background (the cockpit
 * shows its presence); the built-in sim is returned only once its handshake has succeeded.
 */
export async function openRobot(
  spec: RobotSpec,
  log: Logger,
  simArgs: string[] = [],
  topics?: Partial<TopicMap>,
  /** How a TwistStamped command topic is stamped (`--command-stamp`, `--command-frame-id`). */
  command?: Partial<CommandStampOptions>,
  /** PEM certificate authorities a wss:// robot's certificate is checked against (`--ca`). */
  ca?: string,
): Promise<OpenedRobot> {
  const tls = ca === undefined ? {} : { ca };
  switch (spec.kind) {
    case 'sim': {
      const sim = await startSimProcess(log, simArgs, command);
      return { link: sim.link, close: () => sim.close() };
    }
    case 'websocket': {
      const link = openWebSocketLink({ url: spec.url, topics, ...(command === undefined ? {} : { command }), ...tls }, (protocol) =>
        log.info({ url: spec.url, protocol }, `the robot at ${spec.url} answered as ${protocol === 'foxglove' ? 'foxglove_bridge' : 'rosbridge'}`),
      );
      log.info({ url: spec.url }, 'connecting to a robot (rosbridge or foxglove_bridge)');
      return { link, close: () => link.close() };
    }
    case 'foxglove': {
      const link = openFoxgloveLink({ url: spec.url, topics, ...(command === undefined ? {} : { command }), ...tls });
      log.info({ url: spec.url }, 'connecting to a foxglove robot');
      return { link, close: () => link.close() };
    }
    case 'serial': {
      const link = openSerialLink({ path: spec.path, baud: spec.baud });
      log.info({ path: spec.path, baud: spec.baud }, 'opening a serial robot');
      return { link, close: () => link.close() };
    }
  }
}
