// The links a running core opens to a robot, one factory per transport: `openRobot` (`--robot` and the
// cockpit's "Connect robot"), the sim's process and the link benches all open them here, so a bench
// measures the link `reins start` would hold. Also how a session waits for a link to reach its robot,
// and the serial robot the benches reach: the reference firmware under simavr.
import type { TopicMap } from '../core/link.ts';
import { detectBridge, type BridgeProtocol } from '../links/bridgeDetection.ts';
import { DetectingLink } from '../links/detectingLink.ts';
import { FoxgloveLink } from '../links/foxglove/foxgloveLink.ts';
import type { FoxgloveLinkOptions } from '../links/foxglove/foxgloveOptions.ts';
import { RosbridgeLink } from '../links/rosbridge/rosbridgeLink.ts';
import type { RosbridgeLinkOptions } from '../links/rosbridge/rosbridgeOptions.ts';
import { SerialLink, type SerialLinkOptions } from '../links/serial/serialLink.ts';
import type { SerialAddress } from '../links/serial/serialUrl.ts';
import type { CommandStampOptions } from '../links/rosbridge/commandMessage.ts';

export type { ClockOffsetEstimate } from '../links/rosbridge/clockOffset.ts';
export type { CommandStampOptions };
export type { BridgeProtocol, DetectingLink };
export { readCaFile, CaFileError } from '../links/caFile.ts';
export type { LinkClock } from '../links/rosbridge/linkClock.ts';
export type { WireCompression } from '../links/rosbridge/topicRoutes.ts';
export type { FoxgloveLink, FoxgloveLinkOptions, RosbridgeLink, RosbridgeLinkOptions, SerialLink, SerialLinkOptions };
export { LinkUnreachable, waitUntilPresent } from '../links/waitUntilPresent.ts';
export { clockOffsetOf, commandTopicOf } from '../links/linkClockOffset.ts';
export { startFirmware as startReferenceFirmware, type RunningFirmware } from '../links/serial/firmwareSimulator.ts';
export { probeRoundTrip as probeSerialRoundTrip } from '../links/serial/roundTripProbe.ts';

/** A robot running rosbridge: returned at once, it keeps connecting (and reconnecting) in the background. */
export function openRosbridgeLink(options: RosbridgeLinkOptions): RosbridgeLink {
  return new RosbridgeLink(options);
}

/** A robot running foxglove_bridge (or another foxglove server): returned at once, it keeps connecting (and reconnecting) in the background. */
export function openFoxgloveLink(options: FoxgloveLinkOptions): FoxgloveLink {
  return new FoxgloveLink(options);
}

/** How long the handshake that tells rosbridge from foxglove_bridge may take. */
const DETECTION_TIMEOUT_MS = 5000;

export interface WebSocketRobotOptions {
  url: string;
  topics?: Partial<TopicMap>;
  command?: Partial<CommandStampOptions>;
  /** PEM certificate authorities for a wss:// robot (`--ca`). */
  ca?: string;
}

/**
 * A robot at a plain ws:// or wss:// address: rosbridge or foxglove_bridge, told apart by the
 * WebSocket handshake once the robot answers; returned at once, it keeps trying in the background.
 */
export function openWebSocketLink(options: WebSocketRobotOptions, detected?: (protocol: BridgeProtocol) => void): DetectingLink {
  const { url, topics, command, ca } = options;
  const shared = { url, topics, ...(command === undefined ? {} : { command }), ...(ca === undefined ? {} : { ca }) };
  return new DetectingLink({
    url,
    detect: (target) => detectBridge(target, { timeoutMs: DETECTION_TIMEOUT_MS, ...(ca === undefined ? {} : { ca }) }),
    open: (protocol) => (protocol === 'foxglove' ? openFoxgloveLink(shared) : openRosbridgeLink(shared)),
    ...(detected === undefined ? {} : { detected }),
  });
}

/** A microcontroller on a serial port speaking the protocol (PROTOCOL.md): returned at once, it opens the port and says HELLO in the background. */
export function openSerialLink(address: SerialAddress, options: Partial<SerialLinkOptions> = {}): SerialLink {
  return new SerialLink(address, options);
}
