// What the API serves: the cockpit's state, the operator's requests carried out on the control
// loop, and the live previews. The server and its sockets only see this.
import type { Link } from '../core/link.ts';
import { listSerialPorts, type SerialPortCandidate } from '../links/serial/portDiscovery.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import type { LearningResult, LearningSession } from '../learning/learningSession.ts';
import {
  ESTOP_RELEASE_HOLD_MS,
  parseFieldPath,
  type ClipResponse,
  type ClipSide,
  type CockpitState,
  type ErrorBody,
  type PlotFieldsResponse,
  type ReviewPlotResponse,
  type ReviewStatus,
  type ReviewTimelineResponse,
  type RobotConnection,
  type Request,
  type SerialPortsResponse,
  type SimilarMomentsResponse,
  type WorldModelStatus,
} from '../core/contract.ts';
import { compileFieldPath, numericFieldPaths, type CompiledFieldPath } from '../core/fieldPath.ts';
import { LivePlots, plotTypeOf, type LivePlotsOptions } from './livePlots.ts';
import { PointCloudFeed } from './pointCloudFeed.ts';
import { PreviewCache, type Preview } from './previews.ts';
import type { RobotConnections } from './robotConnections.ts';
import { fetchRobotAsset, type RobotAssetResult } from './robotAssets.ts';
import type { RobotModelFile } from './robotModelFile.ts';
import { SceneFeed, type SceneFeedOptions } from './sceneFeed.ts';
import { SceneSource } from './sceneSource.ts';

export type HandleResult = { ok: true } | { ok: false; error: ErrorBody };
export type SerialPortsResult = { ok: true; body: SerialPortsResponse } | { ok: false; error: ErrorBody };
export type ClipResult = { ok: true; body: ClipResponse } | { ok: false; error: ErrorBody };
export type ClipFrameResult = { ok: true; contentType: string; bytes: Uint8Array } | { ok: false; error: ErrorBody };
export type ReviewResult<T> = { ok: true; body: T } | { ok: false; error: ErrorBody };

/** Review mode's controls: the replayed log, its timeline, and the search for similar moments. */
export interface ReviewControl {
  status(): ReviewStatus;
  play(): void;
  pause(): void;
  seek(atMs: number): void;
  setSpeed(speed: number): void;
  /** Opens a moment another search found: its log (one the memory points at), at its time. */
  openMoment(file: string, atMs: number): { ok: true } | { ok: false; message: string };
  /** Feeds the loop's roles from the topics the operator chose; refused in words when one does not fit the log. */
  setTopics(topics: Partial<Record<'camera' | 'scan' | 'joints' | 'imu' | 'odom', string>>): { ok: true } | { ok: false; message: string };
  timeline(): Promise<ReviewTimelineResponse>;
  similar(atMs: number): Promise<SimilarMomentsResponse>;
  /** The log's topics and their ROS types, for plots of any field. */
  plotTopics(): readonly { topic: string; type: string }[];
  /** A compiled field path over the whole log, or why it names nothing there. */
  plot(path: CompiledFieldPath): Promise<{ ok: true; series: ReviewPlotResponse } | { ok: false; problem: string }>;
}

export interface CockpitApi {
  state(): CockpitState;
  handle(request: Request): HandleResult;
  serialPorts(): Promise<SerialPortsResult>;
  cameraPreview(): Preview | undefined;
  scanPreview(): Preview | undefined;
  /** The robot's point cloud, thinned and throttled (previews.ts); undefined until one arrives. */
  pointCloudPreview(): Preview | undefined;
  /** Told when a new camera frame, scan or point cloud has arrived; returns the unsubscribe. */
  onPreviewReady(listener: () => void): () => void;
  /** One side of the open preference question, read back from the recording. */
  clip(questionId: string, side: ClipSide): Promise<ClipResult>;
  /** One camera frame of that clip, as an image. */
  clipFrame(questionId: string, side: ClipSide, index: number): Promise<ClipFrameResult>;
  /** Review mode: the log's markers and plotted series. */
  reviewTimeline(): Promise<ReviewResult<ReviewTimelineResponse>>;
  /** Review mode: moments across sessions like the log's moment at `atMs`. */
  similarMoments(atMs: number): Promise<ReviewResult<SimilarMomentsResponse>>;
  /** Live plots for one UI connection (livePlots.ts); the connection closes them. */
  openLivePlots(options: LivePlotsOptions): LivePlots;
  /** The topics one can plot from and their numeric fields: the robot's, or in review the log's. */
  plotFields(): PlotFieldsResponse;
  /** Review mode: one field path over the log. */
  reviewPlot(path: string): Promise<ReviewResult<ReviewPlotResponse>>;
  /** The 3D scene for one UI connection in this fixed frame (sceneFeed.ts); the connection closes it. */
  openScene(fixedFrame: string, options: SceneFeedOptions): SceneFeed;
  /** A file the robot serves (a mesh its model names), through the link (robotAssets.ts). */
  robotAsset(uri: string | null): Promise<RobotAssetResult>;
}

export class CockpitService implements CockpitApi {
  private readonly previews = new PreviewCache();
  private pointCloudFeed: PointCloudFeed | undefined;
  private sceneSource: SceneSource | undefined;

  constructor(
    private readonly link: Link,
    private readonly loop: ControlLoop,
    private readonly clock: () => number = Date.now,
    private readonly extras: CockpitServiceExtras = {},
  ) {}

  handle(request: Request): HandleResult {
    const result = this.carryOut(request);
    if (result.ok && OPERATOR_ACTIONS.has(request.type))
      this.extras.recordInput?.({ action: request.type, ...(actionDetail(request) ? { detail: actionDetail(request) } : {}) });
    return result;
  }

  private carryOut(request: Request): HandleResult {
    const nowMs = this.clock();
    if (!this.link.capabilities.sendsCommands && DRIVING_REQUESTS.has(request.type) && !isLetGo(request)) {
      return refused(
        request.id,
        `${this.link.robotName} sends no commands: ${this.extras.review ? 'a replay is for review, nothing drives it' : 'nothing can drive it'}`,
      );
    }
    switch (request.type) {
      case 'estop':
        this.loop.estop(nowMs);
        return { ok: true };
      case 'drive':
        // A zero while e-stopped is what the UI sends when it lets go of its keys: nothing to refuse.
        if (this.loop.arbiter.isEStopped() && (request.linearMps !== 0 || request.angularRadps !== 0)) {
          return refused(request.id, 'the robot is e-stopped: release the e-stop before driving');
        }
        this.loop.operatorDrive({ linearMps: request.linearMps, angularRadps: request.angularRadps }, nowMs);
        return { ok: true };
      case 'estop-release':
        if (request.heldMs < ESTOP_RELEASE_HOLD_MS) {
          return refused(request.id, `hold "Release E-stop" for ${ESTOP_RELEASE_HOLD_MS} ms (held ${Math.round(request.heldMs)} ms)`);
        }
        this.loop.releaseEStop(nowMs);
        return { ok: true };
      case 'heartbeat':
        this.loop.heartbeat(nowMs);
        return { ok: true };
      case 'take-over':
        this.loop.takeOver(nowMs);
        return { ok: true };
      case 'hand-back':
        this.loop.handBack(nowMs);
        return { ok: true };
      case 'set-autonomy':
        if (request.enabled && this.loop.arbiter.isEStopped()) return refused(request.id, 'the robot is e-stopped: release the e-stop first');
        this.loop.setAutonomy(request.enabled, nowMs);
        return { ok: true };
      case 'set-speed-limits':
        this.loop.setSpeedLimits(request.maxLinearMps, request.maxAngularRadps);
        return { ok: true };
      case 'connect-robot': {
        const { connections } = this.extras;
        if (!connections) return refused(request.id, 'this core was started without a connection manager: it cannot switch robots');
        const started = connections.connect(request.robot, request.topics);
        if (!started.ok) return { ok: false, error: { code: started.code, message: started.message, id: request.id } };
        return { ok: true };
      }
      case 'end-episode': {
        if (this.extras.review) return refused(request.id, 'a replay has no episodes to end: it is for review');
        const ended = this.loop.endEpisode();
        this.extras.learning?.endEpisode(ended, request.outcome);
        return { ok: true };
      }
      case 'rate':
      case 'undo':
      case 'answer':
      case 'promote-version':
      case 'rollback-version':
      case 'hold-versions':
      case 'set-auto-promote':
      case 'set-question-pace':
      case 'retrain-from-memory':
        return this.handleLearning(request);
      case 'replay-play':
      case 'replay-pause':
      case 'replay-seek':
      case 'replay-speed':
      case 'open-moment':
      case 'set-review-topics':
        return this.handleReview(request);
      case 'set-plots':
        return refused(request.id, 'live plots stream over the UI socket: send set-plots there, not over HTTP');
      case 'set-scene':
        return refused(request.id, 'the scene streams over the UI socket: send set-scene there, not over HTTP');
    }
  }

  private handleReview(
    request: Extract<Request, { type: 'replay-play' | 'replay-pause' | 'replay-seek' | 'replay-speed' | 'open-moment' | 'set-review-topics' }>,
  ): HandleResult {
    const review = this.extras.review;
    if (!review) return refused(request.id, 'this core drives a robot, not a replay: open a log with "reins review FILE"');
    switch (request.type) {
      case 'replay-play':
        review.play();
        return { ok: true };
      case 'replay-pause':
        review.pause();
        return { ok: true };
      case 'replay-seek':
        review.seek(request.atMs);
        return { ok: true };
      case 'replay-speed':
        review.setSpeed(request.speed);
        return { ok: true };
      case 'open-moment': {
        const opened = review.openMoment(request.file, request.atMs);
        return opened.ok ? { ok: true } : refused(request.id, opened.message);
      }
      case 'set-review-topics': {
        const set = review.setTopics(request.topics);
        return set.ok ? { ok: true } : refused(request.id, set.message);
      }
    }
  }

  async reviewTimeline(): Promise<ReviewResult<ReviewTimelineResponse>> {
    const review = this.extras.review;
    if (!review) return { ok: false, error: { code: 'not-found', message: 'this core is not in review mode: there is no timeline' } };
    try {
      return { ok: true, body: await review.timeline() };
    } catch (error) {
      return { ok: false, error: { code: 'unavailable', message: `the log's timeline could not be read: ${(error as Error).message}` } };
    }
  }

  openLivePlots(options: LivePlotsOptions): LivePlots {
    return new LivePlots(this.link, options);
  }

  openScene(fixedFrame: string, options: SceneFeedOptions): SceneFeed {
    return new SceneFeed(this.scene(), fixedFrame, options);
  }

  robotAsset(uri: string | null): Promise<RobotAssetResult> {
    return fetchRobotAsset(this.link, uri);
  }

  plotFields(): PlotFieldsResponse {
    const topics = this.extras.review?.plotTopics() ?? this.link.topics().map((topic) => ({ topic: topic.topic, type: plotTypeOf(topic) }));
    return {
      topics: topics.map(({ topic, type }) => ({
        topic,
        ...(type !== undefined ? { type } : {}),
        fields: type === undefined ? [] : numericFieldPaths(topic, type),
      })),
    };
  }

  async reviewPlot(path: string): Promise<ReviewResult<ReviewPlotResponse>> {
    const review = this.extras.review;
    if (!review) return { ok: false, error: { code: 'not-found', message: 'this core is not in review mode: plot live fields with a set-plots request' } };
    const parsed = parseFieldPath(path);
    if (!parsed.ok) return { ok: false, error: { code: 'bad-request', message: parsed.message } };
    const topics = review.plotTopics();
    const type = topics.find((topic) => topic.topic === parsed.path.topic)?.type;
    if (type === undefined) {
      const known = topics.map((topic) => topic.topic).join(', ');
      return { ok: false, error: { code: 'bad-request', message: `the log has no topic ${parsed.path.topic}; it has ${known || 'none'}` } };
    }
    const compiled = compileFieldPath(path, type);
    if (!compiled.ok) return { ok: false, error: { code: 'bad-request', message: compiled.message } };
    try {
      const read = await review.plot(compiled.compiled);
      return read.ok ? { ok: true, body: read.series } : { ok: false, error: { code: 'bad-request', message: read.problem } };
    } catch (error) {
      return { ok: false, error: { code: 'unavailable', message: `${path} could not be read from the log: ${(error as Error).message}` } };
    }
  }

  async similarMoments(atMs: number): Promise<ReviewResult<SimilarMomentsResponse>> {
    const review = this.extras.review;
    if (!review) return { ok: false, error: { code: 'not-found', message: 'this core is not in review mode: there is nothing to search from' } };
    try {
      return { ok: true, body: await review.similar(atMs) };
    } catch (error) {
      return { ok: false, error: { code: 'unavailable', message: `the search for similar moments failed: ${(error as Error).message}` } };
    }
  }

  /** The operator's feedback and version choices; every refusal carries the session's own words. */
  private handleLearning(
    request: Extract<
      Request,
      {
        type:
          | 'rate'
          | 'undo'
          | 'answer'
          | 'promote-version'
          | 'rollback-version'
          | 'hold-versions'
          | 'set-auto-promote'
          | 'set-question-pace'
          | 'retrain-from-memory';
      }
    >,
  ): HandleResult {
    const learning = this.extras.learning;
    if (!learning) return refused(request.id, 'this core runs without a learning session: feedback and versions are unavailable');
    let result: LearningResult;
    switch (request.type) {
      case 'rate':
        if (request.atMs !== undefined && request.agoMs !== undefined)
          return { ok: false, error: { code: 'bad-request', message: 'a rating names its moment by atMs or by agoMs, not both', id: request.id } };
        result = learning.rate(request.value, request.atMs ?? (request.agoMs === undefined ? undefined : this.clock() - request.agoMs));
        break;
      case 'undo':
        result = learning.undo();
        break;
      case 'answer':
        result = learning.answer(request.questionId, request.answer);
        break;
      case 'promote-version':
        result = learning.promote(request.version);
        break;
      case 'rollback-version':
        result = learning.rollback();
        break;
      case 'hold-versions':
        result = learning.hold(request.held);
        break;
      case 'set-auto-promote':
        result = learning.setAutoPromote(request.enabled);
        break;
      case 'set-question-pace':
        result = learning.setQuestionPace(request.everySecs ?? undefined);
        break;
      case 'retrain-from-memory':
        result = learning.retrainFromMemory();
        break;
    }
    return result.ok ? { ok: true } : refused(request.id, result.message);
  }

  async clip(questionId: string, side: ClipSide): Promise<ClipResult> {
    const learning = this.extras.learning;
    if (!learning) return { ok: false, error: { code: 'not-found', message: 'this core runs without a learning session: there are no clips' } };
    const read = await learning.clip(questionId, side);
    if (!read.ok) return { ok: false, error: { code: 'not-found', message: read.message } };
    const { clip } = read;
    return {
      ok: true,
      body: {
        questionId,
        side,
        startMs: clip.startMs,
        endMs: clip.endMs,
        frames: clip.frames.map((frame, index) => ({ index, timeMs: frame.timeMs })),
        scans: clip.scans,
        path: clip.path,
      },
    };
  }

  async clipFrame(questionId: string, side: ClipSide, index: number): Promise<ClipFrameResult> {
    const learning = this.extras.learning;
    if (!learning) return { ok: false, error: { code: 'not-found', message: 'this core runs without a learning session: there are no clips' } };
    const read = await learning.clip(questionId, side);
    if (!read.ok) return { ok: false, error: { code: 'not-found', message: read.message } };
    const frame = read.clip.frames[index];
    if (!frame)
      return { ok: false, error: { code: 'not-found', message: `the ${side} clip has ${read.clip.frames.length} frames; there is no frame ${index}` } };
    try {
      const image = frame.image();
      return { ok: true, contentType: image.contentType, bytes: image.bytes };
    } catch (error) {
      return { ok: false, error: { code: 'unavailable', message: `frame ${index} of the ${side} clip could not be encoded: ${(error as Error).message}` } };
    }
  }

  async serialPorts(): Promise<SerialPortsResult> {
    let candidates: SerialPortCandidate[];
    try {
      candidates = await (this.extras.listSerialPorts ?? listSerialPorts)();
    } catch (error) {
      return { ok: false, error: { code: 'unavailable', message: error instanceof Error ? error.message : String(error) } };
    }
    const ports = candidates.map((candidate) => ({
      path: candidate.path,
      ...(candidate.manufacturer ? { manufacturer: candidate.manufacturer } : {}),
      ...(candidate.serialNumber ? { serialNumber: candidate.serialNumber } : {}),
      ...(candidate.likelyBoard ? { board: candidate.likelyBoard } : {}),
      likelyRobot: candidate.likelyBoard !== undefined || candidate.vendorId !== undefined,
    }));
    return { ok: true, body: { ports } };
  }

  private connection(): RobotConnection {
    return this.extras.connections?.state() ?? { robot: this.link.robotName, status: 'connected' };
  }

  state(): CockpitState {
    const nowMs = this.clock();
    const odom = this.loop.synchroniser.latest('odom');
    const odomFresh = odom !== undefined && nowMs - odom.receiveTimeMs < 1000;
    const last = this.loop.lastSent()?.command ?? { linearMps: 0, angularRadps: 0 };
    // The loop names streams by its own topic map; the operator reads the attached robot's topics.
    const robotTopics = this.extras.connections?.topics();
    return {
      robotName: this.link.robotName,
      simulated: this.link.capabilities.simulated,
      presence: this.link.presence(),
      driver: this.loop.driver(nowMs),
      estopped: this.loop.arbiter.isEStopped(),
      tookOver: this.loop.arbiter.hasTakenOver(),
      autonomy: this.loop.arbiter.isAutonomous(),
      policyVersion: this.loop.policyVersion,
      lastCommand: { ...last },
      lastCommandAtMs: this.loop.lastSent()?.atMs,
      commandsClipped: this.loop.commandsClipped(),
      measuredSpeed: odomFresh ? { linearMps: odom.msg.linearMps, angularRadps: odom.msg.angularRadps } : undefined,
      odomPose: odomFresh ? { xM: odom.msg.odomFromBaseXM, yM: odom.msg.odomFromBaseYM, yawRad: odom.msg.odomFromBaseYawRad } : undefined,
      speedLimits: this.loop.speedLimits(),
      controlRateHz: this.loop.rateHz,
      tickLatencyMs: this.loop.tickLatency(),
      ticksSkipped: this.loop.ticksSkipped(),
      perception: this.loop.perceptionStatus(),
      worldModel: this.extras.worldModelStatus?.(),
      streams: this.loop.synchroniser.health(nowMs).map((stream) => ({ ...stream, topic: robotTopics?.[stream.role] ?? stream.topic, ageMs: stream.ageMs })),
      alerts: this.loop.alerts().map((alert) => ({ ...alert })),
      connection: this.connection(),
      learning: this.extras.learning?.status(),
      review: this.extras.review?.status(),
    };
  }

  onPreviewReady(listener: () => void): () => void {
    const stopCloud = this.pointClouds().onArrival(listener);
    const stopSensors = this.loop.synchroniser.onArrival((role) => {
      if (role === 'camera' || role === 'scan') listener();
    });
    return () => {
      stopCloud();
      stopSensors();
    };
  }

  cameraPreview(): Preview | undefined {
    return this.previews.cameraPreview(this.loop.synchroniser.latest('camera'));
  }

  scanPreview(): Preview | undefined {
    return this.previews.scanPreview(this.loop.synchroniser.latest('scan'));
  }

  pointCloudPreview(): Preview | undefined {
    return this.previews.pointCloudPreview(this.pointClouds().latest(), this.clock());
  }

  /** Made on first use: the feed subscribes to the robot's cloud only once a UI can show it. */
  private pointClouds(): PointCloudFeed {
    this.pointCloudFeed ??= new PointCloudFeed(this.link, this.extras.pointCloudTopic);
    return this.pointCloudFeed;
  }

  /** Made on first use, shared by every connection's scene; subscribed only while one shows it. */
  private scene(): SceneSource {
    const review = this.extras.review;
    this.sceneSource ??= new SceneSource(this.link, {
      // In review the scene runs on the log's time: a paused replay is a still moment, not a robot gone quiet.
      clock: review ? () => review.status().positionMs : this.clock,
      ...(this.extras.robotModelFile ? { robotModelFile: this.extras.robotModelFile } : {}),
      sensorFrames: () => ({ scan: this.loop.synchroniser.latest('scan')?.msg.frameId, points: this.pointClouds().latest()?.msg.frameId }),
    });
    return this.sceneSource;
  }
}

export interface CockpitServiceExtras {
  /** The world model's figures for the operator; without it, the state has none. */
  worldModelStatus?: () => WorldModelStatus | undefined;
  /** Switches robots at runtime; without it, `connect-robot` is refused. */
  connections?: RobotConnections;
  /** Lists the machine's serial ports (default: serialport's discovery). */
  listSerialPorts?: () => Promise<SerialPortCandidate[]>;
  /** Learning from the operator; without it, feedback and version requests are refused. */
  learning?: Pick<
    LearningSession,
    'rate' | 'undo' | 'answer' | 'promote' | 'rollback' | 'hold' | 'setAutoPromote' | 'setQuestionPace' | 'retrainFromMemory' | 'clip' | 'status' | 'endEpisode'
  >;
  /** Review mode; without it, replay requests are refused. */
  review?: ReviewControl;
  /** The point-cloud topic the operator wants shown; without it, the robot's /points or its first PointCloud2 topic. */
  pointCloudTopic?: string;
  /** The robot's model from `--urdf FILE`; without it, the robot's robot_description topic. */
  robotModelFile?: RobotModelFile;
  /** Where the operator's actions are logged (the session's recording). */
  recordInput?: (input: { action: string; detail?: Record<string, unknown> }) => void;
}

/** Requests that would make the robot move: refused on a link that sends nothing (a replay). */
const DRIVING_REQUESTS = new Set<Request['type']>(['drive', 'take-over', 'set-autonomy']);

/** The operator's actions worth a line in the recording (drive commands are recorded as sent). */
const OPERATOR_ACTIONS = new Set<Request['type']>([
  'estop',
  'estop-release',
  'take-over',
  'hand-back',
  'set-autonomy',
  'set-speed-limits',
  'connect-robot',
  'end-episode',
]);

/** A zero drive or autonomy off: letting go is never refused. */
function isLetGo(request: Request): boolean {
  if (request.type === 'drive') return request.linearMps === 0 && request.angularRadps === 0;
  if (request.type === 'set-autonomy') return !request.enabled;
  return false;
}

function actionDetail(request: Request): Record<string, unknown> | undefined {
  switch (request.type) {
    case 'set-autonomy':
      return { enabled: request.enabled };
    case 'end-episode':
      return { outcome: request.outcome };
    case 'set-speed-limits':
      return { maxLinearMps: request.maxLinearMps, maxAngularRadps: request.maxAngularRadps };
    case 'connect-robot':
      return { robot: request.robot };
    default:
      return undefined;
  }
}

function refused(id: string | undefined, message: string): HandleResult {
  return { ok: false, error: { code: 'refused', message, id } };
}
