// The simulated robot as a ROS 2 robot running foxglove_bridge 3.x would be: a WebSocket server that
// selects the subprotocol `foxglove.sdk.v1` and answers HTTP 400 to a client offering only the old
// `foxglove.websocket.v1` (with `legacy`, it is an older bridge that speaks only the old name),
// advertises the robot's topics as `cdr` channels with `ros2msg` schemas under ROS 2 names, sends
// each subscribed channel's messages as binary frames, and takes velocity commands through client
// publishing on /cmd_vel in the robot's command type (Twist, or TwistStamped with Jazzy's rules).
// Its model, frames and map go as the rosbridge server's do (/tf with each odometry reading; the
// transient-local /tf_static, /robot_description and /map to each client as it subscribes; /plan and
// /markers once a second with the odometry).
//
// @foxglove/ws-protocol's FoxgloveServer does the protocol (serverInfo, advertise, subscriptions,
// client channels); it selects only `foxglove.websocket.v1`, so the handshake (which subprotocol, or
// 400) is done here, on a plain http server, and the connection handed to it afterwards. It also has
// no send buffer limit: each client's socket is wrapped to drop messages for a client that reads
// slower than the robot publishes, as foxglove_bridge's send_buffer_limit does.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { parse } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import { BinaryOpcode, FetchAssetStatus, FoxgloveServer, type IWebSocket } from '../../links/foxglove/wsProtocol.ts';
import { WebSocketServer, type WebSocket } from 'ws';
import { fullRos2MessageDefinition, ros2TypeName } from '../../core/rosMessageDefinitions.ts';
import { episodeMap } from '../occupancyGrid.ts';
import { NAVIGATION_OVERLAY_RATE_HZ, NavigationOverlay } from '../navigationOverlay.ts';
import { BASE_FRAME_ID } from '../odometry.ts';
import { MAP_FRAME_ID, RobotFrames } from '../robotFrames.ts';
import { RateSchedule } from '../schedule.ts';
import { LIDAR_HOUSING_URI, lidarHousingStl } from '../robotMeshes.ts';
import { LASER_HEIGHT_M, LASER_RADIUS_M, ROBOT_STATE_PUBLISHER_NODE, robotModel } from '../robotModel.ts';
import { CommandInput, type SimCommandType } from '../rosbridge/commandInput.ts';
import { rosMessageOf, type RosMessage } from '../rosbridge/rosMessages.ts';
import { ROS2_PERSONA } from '../rosbridge/rosPersona.ts';
import { rosMarkerArray, rosOccupancyGrid, rosPath, rosString, rosTfMessage } from '../rosbridge/sceneMessages.ts';
import { CMD_VEL_TOPIC, isSensorSource, PUBLISHED_TOPICS, sameRosType, topicOfSource, type SceneSource } from '../rosbridge/topicCatalog.ts';
import type { SensorOutput, SensorSink, SensorStream, SimRobot } from '../simRobot.ts';
import { LatchedChannels } from './latchedChannels.ts';

export const DEFAULT_FOXGLOVE_PORT = 8765;
export const FOXGLOVE_SDK_SUBPROTOCOL = 'foxglove.sdk.v1';
export const FOXGLOVE_LEGACY_SUBPROTOCOL = 'foxglove.websocket.v1';
/** foxglove_bridge's default send_buffer_limit. */
const SEND_BUFFER_LIMIT_BYTES = 10_000_000;

/** The robot's clock, as the rosbridge server that steps the robot keeps it. */
export interface RobotClock {
  /** A simulated time on the robot's clock, in ms since the epoch. */
  msAt(simTimeSecs: number): number;
  /** The robot's clock now, in ms since the epoch. */
  nowMs(): number;
}

export interface SimFoxgloveOptions {
  robot: SimRobot;
  host: string;
  /** 0 picks a free port. */
  port: number;
  commandType: SimCommandType;
  /** Speak only the old `foxglove.websocket.v1`, as foxglove_bridge before 3.x did. */
  legacy: boolean;
  clock: RobotClock;
  log: { warn(object: object, message: string): void };
  /** Whether /robot_description is a channel (default); off, the model is only robot_state_publisher's parameter. */
  robotDescriptionTopic: boolean;
}

export interface SimFoxgloveServer {
  readonly port: number;
  /** ws://HOST:PORT */
  readonly url: string;
  /** Fed every step's sensor outputs by whoever steps the robot (the rosbridge server's sensor taps). */
  readonly sensors: SensorSink;
  close(): Promise<void>;
}

interface SimChannel {
  id: number;
  topic: string;
  writer: MessageWriter;
}

export async function startSimFoxgloveServer(given: Partial<SimFoxgloveOptions> & Pick<SimFoxgloveOptions, 'robot' | 'clock'>): Promise<SimFoxgloveServer> {
  const options: SimFoxgloveOptions = {
    host: '127.0.0.1',
    port: DEFAULT_FOXGLOVE_PORT,
    commandType: 'twist',
    legacy: false,
    log: { warn: () => undefined },
    robotDescriptionTopic: true,
    ...given,
  };
  const { robot, clock } = options;
  const subprotocol = options.legacy ? FOXGLOVE_LEGACY_SUBPROTOCOL : FOXGLOVE_SDK_SUBPROTOCOL;
  const fox = new FoxgloveServer({
    name: 'reins-sim',
    capabilities: ['clientPublish', 'parameters', 'assets'],
    supportedEncodings: ['cdr'],
    metadata: { ROS_DISTRO: 'jazzy' },
  });
  fox.on('error', (error) => options.log.warn({ err: error }, 'a foxglove client sent something the server could not use'));

  const channels = new Map<string, SimChannel>();
  const addChannel = (topic: string, rosType: string): void => {
    const schema = fullRos2MessageDefinition(rosType);
    const id = fox.addChannel({ topic, encoding: 'cdr', schemaName: ros2TypeName(rosType), schema, schemaEncoding: 'ros2msg' });
    channels.set(topic, { id, topic, writer: new MessageWriter(parse(schema, { ros2: true })) });
  };
  for (const topic of PUBLISHED_TOPICS) {
    const offered = isSensorSource(topic.source)
      ? robot.hasStream(topic.source)
      : topic.source !== 'groundTruth' && (options.robotDescriptionTopic || topic.source !== 'robotDescription');
    if (offered && fullRos2MessageDefinition(topic.type) !== '') addChannel(topic.name, topic.type);
  }
  const command = new CommandInput(options.commandType, { drive: (drive, ageSecs) => robot.drive(drive, ageSecs) }, () => clock.nowMs());
  // Someone publishes /cmd_vel on a robot being driven, so the bridge lists it, in the type the controller takes.
  addChannel(CMD_VEL_TOPIC.name, command.topic.type);
  const commandReader = new MessageReader(parse(fullRos2MessageDefinition(command.topic.type), { ros2: true }));

  const subscribed = new Set<number>();
  fox.on('subscribe', (id) => subscribed.add(id));
  fox.on('unsubscribe', (id) => subscribed.delete(id));
  const wanted = (topic: string): SimChannel | undefined => {
    const channel = channels.get(topic);
    return channel !== undefined && subscribed.has(channel.id) ? channel : undefined;
  };
  const sequences = new Map<string, number>();
  const nextSeq = (topic: string): number => {
    const seq = (sequences.get(topic) ?? 0) + 1;
    sequences.set(topic, seq);
    return seq;
  };
  const send = (channel: SimChannel, msg: RosMessage, stampMs: number): void => {
    fox.sendMessage(channel.id, BigInt(Math.round(stampMs * 1e6)), channel.writer.writeMessage(ROS2_PERSONA.message(msg)) as Uint8Array<ArrayBuffer>);
  };

  // The robot's model, frames and map: the latched ones kept for each client that subscribes later.
  const latched = new LatchedChannels((channelId) => [...channels.values()].some((channel) => channel.id === channelId));
  // This robot serves its files (assets, below): its model names the LiDAR housing's mesh.
  const frames = new RobotFrames(robot, robotModel({ points: robot.pointsOptions, laserMeshUri: LIDAR_HOUSING_URI }));
  const sceneChannel = (source: SceneSource): SimChannel => channels.get(topicOfSource(source).name)!;
  const publishLatched = (source: SceneSource, msg: RosMessage, stampMs: number): void => {
    const channel = sceneChannel(source);
    const logTimeNs = BigInt(Math.round(stampMs * 1e6));
    const payload = channel.writer.writeMessage(ROS2_PERSONA.message(msg)) as Uint8Array<ArrayBuffer>;
    latched.keep(channel.id, logTimeNs, payload);
    fox.sendMessage(channel.id, logTimeNs, payload);
  };
  const publishMap = (): void => {
    const stampMs = clock.msAt(robot.simTimeSecs());
    publishLatched('map', rosOccupancyGrid(episodeMap(robot), nextSeq(topicOfSource('map').name), stampMs, MAP_FRAME_ID), stampMs);
  };
  const startMs = clock.msAt(robot.simTimeSecs());
  if (options.robotDescriptionTopic) publishLatched('robotDescription', rosString(frames.model.urdf), startMs);
  serveParametersAndAssets(fox, frames.model.urdf);
  publishLatched('tfStatic', rosTfMessage(frames.staticTransforms, startMs), startMs);
  publishMap();
  const stopWatchingEpisodes = robot.onEpisodeStart(publishMap);
  const tfTopic = topicOfSource('tf').name;
  // The planned route and the markers, as the rosbridge server's (scenePublisher.ts).
  const overlay = new NavigationOverlay(robot.arena, MAP_FRAME_ID, BASE_FRAME_ID);
  const overlaySchedule = new RateSchedule(NAVIGATION_OVERLAY_RATE_HZ);
  const [planTopic, markersTopic] = [topicOfSource('plan').name, topicOfSource('markers').name];
  // A first listener is sent them at once, then once a second.
  let overlayHeard = false;
  const publishOverlay = (simTimeSecs: number, stampMs: number): void => {
    const due = overlaySchedule.takeDue(simTimeSecs);
    const plan = wanted(planTopic);
    const markers = wanted(markersTopic);
    const heard = plan !== undefined || markers !== undefined;
    const firstHeard = heard && !overlayHeard;
    overlayHeard = heard;
    if (!heard || (!due && !firstHeard)) return;
    const truth = robot.groundTruth();
    if (plan !== undefined) send(plan, rosPath(overlay.route(truth), nextSeq(planTopic), stampMs, MAP_FRAME_ID), stampMs);
    if (markers !== undefined) send(markers, rosMarkerArray(overlay.markers(truth), stampMs), stampMs);
  };

  const sensors: SensorSink = {
    wants: (stream: SensorStream) =>
      wanted(topicOfSource(stream).name) !== undefined ||
      (stream === 'odom' && [tfTopic, planTopic, markersTopic].some((topic) => wanted(topic) !== undefined)),
    receive: (output: SensorOutput) => {
      const stampMs = clock.msAt(output.simTimeSecs);
      const tf = wanted(tfTopic);
      if (output.stream === 'odom' && tf !== undefined) send(tf, rosTfMessage(frames.withOdometry(output.msg, output.simTimeSecs), stampMs), stampMs);
      if (output.stream === 'odom') publishOverlay(output.simTimeSecs, stampMs);
      const channel = wanted(topicOfSource(output.stream).name);
      if (channel === undefined) return;
      send(channel, rosMessageOf(output, { seq: nextSeq(channel.topic), stampMs, scanPeriodSecs: 1 / robot.scanOptions.rateHz }), stampMs);
    },
  };

  // Client channels the robot accepts: /cmd_vel in its command type; anything else gets a status error.
  const accepted = new WeakMap<object, Set<number>>();
  fox.on('advertise', ({ client, id, topic, encoding, schemaName }) => {
    const problem =
      topic !== CMD_VEL_TOPIC.name
        ? `the simulated robot takes only ${CMD_VEL_TOPIC.name}, not ${topic}`
        : encoding !== 'cdr'
          ? `${topic} must be cdr, not ${encoding}`
          : !sameRosType(schemaName, command.topic.type)
            ? `${topic} takes ${ros2TypeName(command.topic.type)}, not ${schemaName}`
            : undefined;
    if (problem !== undefined) {
      fox.sendStatus({ level: 2, message: problem }, client.connection);
      return;
    }
    const ids = accepted.get(client) ?? new Set<number>();
    ids.add(id);
    accepted.set(client, ids);
  });
  fox.on('unadvertise', ({ client, channelId }) => accepted.get(client)?.delete(channelId));
  fox.on('message', ({ client, channel, data }) => {
    if (!accepted.get(client)?.has(channel.id)) return;
    let msg: unknown;
    try {
      msg = commandReader.readMessage(data);
    } catch (error) {
      fox.sendStatus(
        { level: 2, message: `${channel.topic}: ${data.byteLength} bytes are not a ${command.topic.type}: ${(error as Error).message}` },
        client.connection,
      );
      return;
    }
    const taken = command.take(msg);
    if (!taken.ok) {
      fox.sendStatus({ level: 2, message: `${channel.topic}: ${taken.message}` }, client.connection);
      return;
    }
    // As on a ROS topic, whoever watches /cmd_vel sees the command, obeyed or not.
    const watched = wanted(CMD_VEL_TOPIC.name);
    if (watched !== undefined)
      fox.sendMessage(watched.id, BigInt(Math.round(clock.nowMs() * 1e6)), new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength));
  });

  const http = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain' }).end(`a foxglove WebSocket server (${subprotocol})\n`);
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: () => subprotocol });
  let nextClient = 1;
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const offered = String(request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((name) => name.trim());
    if (!offered.includes(subprotocol)) {
      // What foxglove_bridge 3.x does to a client that offers only the old name (and an old bridge to one offering only the new).
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nthis server speaks ${subprotocol}\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', () => undefined);
      const bounded: BoundedSocket = new BoundedSocket(
        ws,
        SEND_BUFFER_LIMIT_BYTES,
        latched.follow((frame) => bounded.send(frame)),
      );
      fox.handleConnection(bounded, `client ${nextClient++}`);
    });
  });
  await listen(http, options.host, options.port);
  const port = (http.address() as AddressInfo).port;
  return {
    port,
    url: `ws://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    sensors,
    close: async () => {
      stopWatchingEpisodes();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * robot_state_publisher's robot_description parameter (`/robot_state_publisher.robot_description`,
 * foxglove_bridge's naming) and the robot's meshes by `package://` URI, answered as foxglove_bridge
 * answers: a parameter it does not have is left out of the reply; a URI outside its allow-list or not
 * found is an error response naming it.
 */
function serveParametersAndAssets(fox: FoxgloveServer, urdf: string): void {
  const parameters = new Map<string, string>([[`${ROBOT_STATE_PUBLISHER_NODE}.robot_description`, urdf]]);
  fox.on('getParameters', ({ parameterNames, id }, client) => {
    const asked = parameterNames.length === 0 ? [...parameters.keys()] : parameterNames;
    const known = asked.filter((name) => parameters.has(name)).map((name) => ({ name, value: parameters.get(name)! }));
    fox.publishParameterValues(known, id, client);
  });
  const housing = lidarHousingStl(LASER_RADIUS_M, LASER_HEIGHT_M);
  const assets = new Map<string, Uint8Array>([[LIDAR_HOUSING_URI, housing]]);
  fox.on('fetchAsset', ({ uri, requestId }, client) => {
    const data = assets.get(uri);
    if (!/^package:\/\//.test(uri)) {
      fox.sendFetchAssetResponse(
        { op: BinaryOpcode.FETCH_ASSET_RESPONSE, requestId, status: FetchAssetStatus.ERROR, error: `Asset URI not allowed: ${uri}` },
        client,
      );
    } else if (data === undefined) {
      fox.sendFetchAssetResponse(
        { op: BinaryOpcode.FETCH_ASSET_RESPONSE, requestId, status: FetchAssetStatus.ERROR, error: `Failed to retrieve asset ${uri}` },
        client,
      );
    } else {
      fox.sendFetchAssetResponse({ op: BinaryOpcode.FETCH_ASSET_RESPONSE, requestId, status: FetchAssetStatus.SUCCESS, data }, client);
    }
  });
}

function listen(http: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.removeListener('error', reject);
      resolve();
    });
  });
}

/**
 * A client's socket as FoxgloveServer sees it: binary messages are dropped while more than
 * `limitBytes` wait to be sent (a slow client gets fresh messages, not a growing backlog). `send`
 * takes one argument, so the server hands it each message whole rather than in two fragments. The
 * client's text ops are shown to `afterClientText` too (latchedChannels.ts follows subscriptions).
 */
class BoundedSocket implements IWebSocket {
  constructor(
    private readonly ws: WebSocket,
    private readonly limitBytes: number,
    /** Sees each text op the client sends, after the server has handled it. */
    private readonly afterClientText: (text: string) => void,
  ) {}

  get binaryType(): string {
    return this.ws.binaryType;
  }
  set binaryType(type: string) {
    this.ws.binaryType = type as WebSocket['binaryType'];
  }
  get protocol(): string {
    return this.ws.protocol;
  }
  get onerror(): IWebSocket['onerror'] {
    return this.ws.onerror as IWebSocket['onerror'];
  }
  set onerror(handler: IWebSocket['onerror']) {
    this.ws.onerror = handler ?? null;
  }
  get onopen(): IWebSocket['onopen'] {
    return this.ws.onopen as IWebSocket['onopen'];
  }
  set onopen(handler: IWebSocket['onopen']) {
    this.ws.onopen = handler ?? null;
  }
  get onclose(): IWebSocket['onclose'] {
    return this.ws.onclose as IWebSocket['onclose'];
  }
  set onclose(handler: IWebSocket['onclose']) {
    this.ws.onclose = handler ?? null;
  }
  get onmessage(): IWebSocket['onmessage'] {
    return this.ws.onmessage as IWebSocket['onmessage'];
  }
  set onmessage(handler: IWebSocket['onmessage']) {
    if (handler === undefined || handler === null) {
      this.ws.onmessage = null;
      return;
    }
    this.ws.onmessage = (event) => {
      handler(event as Parameters<typeof handler>[0]);
      if (typeof event.data === 'string') this.afterClientText(event.data);
    };
  }

  close(): void {
    this.ws.close();
  }

  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (typeof data !== 'string' && this.ws.bufferedAmount > this.limitBytes) return;
    this.ws.send(data);
  }
}

/**
 * The robot's clock for a foxglove server started before the rosbridge server that steps the robot
 * (it is one of that server's sensor taps): the wall clock shifted by `aheadMs` until that server's
 * clock is attached; the robot does not step before then.
 */
export class LateRobotClock implements RobotClock {
  private clock: RobotClock | undefined;

  constructor(private readonly aheadMs = 0) {}

  attach(clock: RobotClock): void {
    this.clock = clock;
  }

  msAt(simTimeSecs: number): number {
    return this.clock?.msAt(simTimeSecs) ?? Date.now() + this.aheadMs;
  }

  nowMs(): number {
    return this.clock?.nowMs() ?? Date.now() + this.aheadMs;
  }
}
