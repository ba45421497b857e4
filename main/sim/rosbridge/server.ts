// The simulated robot as a ROS robot running rosbridge_server (protocol v2; ROS 1 types, or with
// `rosVersion: 2` as rosbridge_suite's ROS 2 server: see rosPersona.ts): a WebSocket server on
// loopback that runs the robot in real time, publishes its sensors (and its model, TF and map:
// scenePublisher.ts) to whoever subscribes, obeys
// /cmd_vel (Twist, or TwistStamped with ROS 2 Jazzy's stamp rules, on a clock that may be set ahead
// of the wall clock), and serves rosapi and the simulator's own services.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { fanOutSensors } from '../sensorFanout.ts';
import type { SensorSink, SimRobot } from '../simRobot.ts';
import { CommandInput, type SimCommandType } from './commandInput.ts';
import { DEFAULT_OUTBOX_OPTIONS, type OutboxOptions, type OutboxStats } from './clientOutbox.ts';
import { RosbridgeSession, type BridgeLog, type SessionHub } from './clientSession.ts';
import type { OutgoingMessage } from './outgoingMessage.ts';
import { RealtimeStepper, type RealtimeStepperOptions } from './realtimeStepper.ts';
import { ROBOT_STATE_PUBLISHER_NODE } from '../robotModel.ts';
import { personaOf, type SimRosVersion } from './rosPersona.ts';
import { ScenePublisher } from './scenePublisher.ts';
import { createServices } from './services.ts';
import { topicOfSource, topicsOffered } from './topicCatalog.ts';
import { TopicPublisher } from './topicPublisher.ts';

export const DEFAULT_ROSBRIDGE_PORT = 9090;
/** rosbridge_server's default largest message. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface SimRosbridgeOptions {
  robot: SimRobot;
  host: string;
  /** 0 picks a free port: read it back from the server. */
  port: number;
  /** Answered by /sim/identify, so that `reins start` knows it reached its own simulated robot. */
  identity: string;
  robotName: string;
  log: BridgeLog;
  /** Largest message a client may send, whole or in fragments; larger ones get a status error. */
  maxMessageBytes: number;
  /** A WebSocket frame larger than this closes the connection (1009) before it is even read. */
  maxFrameBytes: number;
  fragmentTimeoutMs: number;
  maxClients: number;
  maxSubscriptionsPerClient: number;
  realtime: Partial<RealtimeStepperOptions>;
  /**
   * Also fed the sensor outputs of every step the server makes, beside its clients (e.g. the serial
   * device of `reins sim --serial-pty`, which exposes the same robot).
   */
  sensorTaps: readonly SensorSink[];
  outbox: OutboxOptions;
  /** ROS 1 (rosbridge_suite 0.11) or ROS 2 (rosbridge_suite 2.x, as in Jazzy): type names, times, rosapi, cbor-raw. */
  rosVersion: SimRosVersion;
  /**
   * What /cmd_vel takes: geometry_msgs/Twist, or geometry_msgs/TwistStamped with ROS 2 Jazzy's stamp
   * rules (commandInput.ts). Default: Twist on ROS 1, TwistStamped on ROS 2 (Jazzy's diff_drive_controller).
   */
  commandType: SimCommandType;
  /** False: rosbridge_server without rosapi (its services unanswered), as on a robot that launched only the server. */
  rosapi: boolean;
  /** The robot's clock runs this far ahead of the wall clock (negative: behind): its stamps, /rosapi/get_time and the command stamps it judges. */
  clockAheadMs: number;
  /** The simulation stopped with an error; the server keeps answering but publishes nothing more. */
  onFailure: (error: unknown) => void;
  /**
   * Whether /robot_description is offered (default). Off (`reins sim --no-robot-description-topic`),
   * the model is only robot_state_publisher's parameter, as a ROS 2 robot whose transient-local
   * topic the bridge does not replay looks to a client.
   */
  robotDescriptionTopic: boolean;
}

export interface SimRosbridgeServer {
  readonly port: number;
  /** ws://HOST:PORT */
  readonly url: string;
  /** The robot's clock (stamps and "now"), for another server of the same robot (the foxglove one). */
  readonly robotClock: { msAt(simTimeSecs: number): number; nowMs(): number };
  stats(): { clients: OutboxStats[] };
  close(): Promise<void>;
}

const SILENT_LOG: BridgeLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
/** WebSocket close code 1013: try again later. */
const CLOSE_TRY_AGAIN_LATER = 1013;

export async function startSimRosbridgeServer(given: Partial<SimRosbridgeOptions> & Pick<SimRosbridgeOptions, 'robot'>): Promise<SimRosbridgeServer> {
  const maxMessageBytes = given.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const options: SimRosbridgeOptions = {
    host: '127.0.0.1',
    port: DEFAULT_ROSBRIDGE_PORT,
    identity: '',
    robotName: 'reins-sim',
    log: SILENT_LOG,
    maxFrameBytes: 2 * maxMessageBytes,
    fragmentTimeoutMs: 10_000,
    maxClients: 64,
    maxSubscriptionsPerClient: 64,
    realtime: {},
    sensorTaps: [],
    outbox: DEFAULT_OUTBOX_OPTIONS,
    rosVersion: 1,
    clockAheadMs: 0,
    rosapi: true,
    onFailure: () => undefined,
    robotDescriptionTopic: true,
    ...given,
    commandType: given.commandType ?? (given.rosVersion === 2 ? 'twist-stamped' : 'twist'),
    maxMessageBytes,
  };
  const persona = personaOf(options.rosVersion);
  const { robot, log } = options;
  // Listen first: from here on everything is set up in one go, so the clock starts with the steps.
  const wss = await listen(options);
  const port = (wss.address() as AddressInfo).port;
  const sessions = new Set<RosbridgeSession>();
  const audience = {
    wants: (topic: string) => {
      for (const session of sessions) if (session.subscribes(topic)) return true;
      return false;
    },
    deliver: (message: OutgoingMessage) => {
      for (const session of sessions) session.outbox.offer(message);
    },
  };

  const stepper = new RealtimeStepper(
    {
      step: (stepSecs) => {
        robot.step(stepSecs, sensors);
        publisher.afterStep();
      },
      skipped: (skippedSecs) => log.warn({ skippedSecs }, 'the simulated robot fell behind real time and skipped ahead'),
      failed: (error) => {
        log.error({ err: error }, 'the simulated robot stopped');
        options.onFailure(error);
      },
    },
    robot.simTimeSecs(),
    options.realtime,
  );
  // The robot's clock: the wall clock, shifted where the robot's clock is set to run ahead of it.
  const robotMsAt = (simTimeSecs: number): number => stepper.wallMsAt(simTimeSecs) + options.clockAheadMs;
  const robotNowMs = (): number => stepper.clockMsNow(robot.simTimeSecs()) + options.clockAheadMs;
  const publisher = new TopicPublisher(robot, audience, robotMsAt, persona, robotNowMs);
  const scene = new ScenePublisher(robot, audience, robotMsAt, persona, robotNowMs, options.robotDescriptionTopic);
  const command = new CommandInput(options.commandType, { drive: (drive, ageSecs) => robot.drive(drive, ageSecs) }, robotNowMs);
  const sensors = fanOutSensors([publisher, scene, ...options.sensorTaps]);

  const hub: SessionHub = {
    services: createServices({
      clockMs: robotNowMs,
      resetEpisode: (seed) => {
        robot.resetEpisode(seed);
        return robot.episodeState().seed;
      },
      inject: (injection) => robot.inject(injection),
      identity: options.identity,
      robotName: options.robotName,
      topics: topicsOffered((stream) => robot.hasStream(stream), command.topic).filter(
        (topic) => options.robotDescriptionTopic || topic.name !== topicOfSource('robotDescription').name,
      ),
      persona,
      rosapi: options.rosapi,
      nodeParameters: { [ROBOT_STATE_PUBLISHER_NODE]: { robot_description: scene.robotDescription() } },
    }),
    command,
    relayCommand: (msg) => publisher.relayCommand(msg, command.topic.type),
    latched: (topic) => scene.latchedMessage(topic),
    persona,
    log,
  };

  let nextClientId = 1;
  wss.on('connection', (socket: WebSocket, request) => {
    if (sessions.size >= options.maxClients) {
      log.warn({ remote: request.socket.remoteAddress }, `refused a rosbridge client: ${options.maxClients} are connected`);
      socket.on('error', () => undefined);
      socket.close(CLOSE_TRY_AGAIN_LATER, 'too many clients');
      return;
    }
    const session = new RosbridgeSession(nextClientId++, socket, hub, {
      maxMessageBytes: options.maxMessageBytes,
      fragmentTimeoutMs: options.fragmentTimeoutMs,
      maxSubscriptions: options.maxSubscriptionsPerClient,
      outbox: options.outbox,
    });
    sessions.add(session);
    log.info({ clientId: session.clientId, remote: request.socket.remoteAddress }, 'rosbridge client connected');
    socket.on('close', () => {
      sessions.delete(session);
      log.info({ clientId: session.clientId }, 'rosbridge client disconnected');
    });
  });
  stepper.start();

  return {
    port,
    url: `ws://${urlHost(options.host)}:${port}`,
    robotClock: { msAt: robotMsAt, nowMs: robotNowMs },
    stats: () => ({ clients: [...sessions].map((session) => session.outbox.stats()) }),
    close: async () => {
      stepper.stop();
      scene.dispose();
      for (const session of sessions) session.dispose();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function listen(options: SimRosbridgeOptions): Promise<WebSocketServer> {
  return new Promise((resolve, reject) => {
    const wss = new WebSocketServer({
      host: options.host,
      port: options.port,
      maxPayload: options.maxFrameBytes,
      perMessageDeflate: false,
      // rosbridge_server (tornado) selects no subprotocol whatever a client offers; ws would select the first.
      handleProtocols: () => false,
    });
    wss.once('listening', () => {
      wss.removeListener('error', reject);
      wss.on('error', (error) => options.log.error({ err: error }, 'rosbridge server error'));
      resolve(wss);
    });
    wss.once('error', reject);
  });
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
