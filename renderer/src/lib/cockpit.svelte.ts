// The cockpit's live view of the core: connection status, the latest state, the latest camera and
// scan frames, and one narrow method per request the operator can make.
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import {
  ClipResponse,
  clipFramePath,
  clipPath,
  Paths,
  PlotFieldsResponse,
  Request,
  ReviewPlotResponse,
  ReviewTimelineResponse,
  SerialPortsResponse,
  SimilarMomentsResponse,
  type CameraFrame,
  type ClipSide,
  type CockpitState,
  type PreferenceAnswerChoice,
  type DriveValue,
  type Event,
  type PlotStatusEvent,
  type OccupancyGridFrame,
  type PointCloudFrame,
  type RobotTopicsInput,
  type SceneDrawingsEvent,
  type SceneEvent,
  type SceneRobotEvent,
  type ScanFrame,
  type SerialPortEntry,
} from './contract.ts';
import { CoreSocket, type CoreLinkStatus, type OpenSocket } from './coreSocket.ts';
import { LiveFieldSeries, measurePlotWork } from './fieldSeries.ts';
import { MotionSeries, motionSample } from './plotSeries.ts';
import { RateMeter } from './rateMeter.ts';
import { Toasts } from './toasts.svelte.ts';
import { PoseTrail } from './trail.ts';

const RATE_REFRESH_MS = 500;
/** Calls the core's HTTP API with the access token; the path is one of the contract's Paths. */
export type CoreFetch = (path: string) => Promise<Response>;

/** The core's origin and the access token, for what fetches from the core off the page's thread (the 3D view's worker). */
export interface CoreAccess {
  origin: string;
  token: string;
}

/** The same problem is logged at most this often, so a misbehaving core cannot flood the console. */
const PROBLEM_LOG_EVERY_MS = 5000;

export class Cockpit {
  status = $state<CoreLinkStatus>('connecting');
  state = $state.raw<CockpitState | undefined>(undefined);
  camera = $state.raw<CameraFrame | undefined>(undefined);
  cameraFps = $state(0);
  scan = $state.raw<ScanFrame | undefined>(undefined);
  scanHz = $state(0);
  /** The latest point cloud (thinned by the core); the 3D view copies it into its own buffer. */
  points = $state.raw<PointCloudFrame | undefined>(undefined);
  pointsHz = $state(0);
  /** Point clouds received since start; not reactive (the 3D view writes it beside the clouds it drew, for benches). */
  pointsReceived = 0;
  failedAttempts = $state(0);
  /** Why the core refused the last connect-robot request at once (bad address, someone driving). */
  connectRefusal = $state<string | undefined>(undefined);
  readonly toasts = new Toasts();
  /** Recent odometry poses for the LiDAR view; not reactive: drawn whenever `state` changes. */
  readonly trail = new PoseTrail();
  /** Measured and commanded speeds for the plots; not reactive: charts poll its version. */
  readonly motion = new MotionSeries();
  /** The plot panel's live series of any field; not reactive: charts poll its version. */
  readonly fieldSeries = new LiveFieldSeries();
  /** What the core made of the plot panel's paths (a problem per series, in words). */
  plotStatus = $state.raw<PlotStatusEvent | undefined>(undefined);
  /** The 3D view's scene in its fixed frame (TF frames, map metadata, sensor frames), while the view asks for it. */
  scene = $state.raw<SceneEvent | undefined>(undefined);
  /** The robot's model (URDF), the latest revision. */
  sceneRobot = $state.raw<SceneRobotEvent | undefined>(undefined);
  /** The map's cells, the latest revision. */
  sceneMap = $state.raw<OccupancyGridFrame | undefined>(undefined);
  /** The robot's planned paths and markers, as the core last sent them. */
  sceneDrawings = $state.raw<SceneDrawingsEvent | undefined>(undefined);

  readonly #socket: CoreSocket;
  readonly #clock: Clock;
  readonly #cameraRate = new RateMeter();
  readonly #scanRate = new RateMeter();
  readonly #pointsRate = new RateMeter();
  readonly #problemLoggedAtMs = new Map<string, number>();
  readonly #fetch: CoreFetch | undefined;
  /** Where the 3D view fetches the robot's meshes from (robotMeshes.ts); undefined where the cockpit has no HTTP access. */
  readonly coreAccess: CoreAccess | undefined;
  #rateTimer: number | undefined;
  #connectCount = 0;
  #reviewTopicsCount = 0;
  #pendingConnectId: string | undefined;
  #shownLearningMessage: number | undefined;
  /** The paths the plot panel asked for: asked again on every new connection to the core. */
  #plotPaths: readonly string[] = [];
  /** The fixed frame the 3D view asked for (undefined: no scene): asked again on every new connection. */
  #sceneFrame: string | undefined;

  constructor(url: string, openSocket: OpenSocket, clock: Clock = systemClock, fetchCore?: CoreFetch, coreAccess?: CoreAccess) {
    this.#clock = clock;
    this.#fetch = fetchCore;
    this.coreAccess = coreAccess;
    this.#socket = new CoreSocket(
      { url, openSocket, clock },
      {
        status: (status) => {
          this.status = status;
          this.failedAttempts = this.#socket.failedAttempts;
        },
        event: (event) => this.#onEvent(event),
        frame: (frame) => {
          const nowMs = this.#clock.nowMs();
          if (frame.kind === 'camera') {
            this.camera = frame;
            this.#cameraRate.record(nowMs);
          } else if (frame.kind === 'scan') {
            this.scan = frame;
            this.#scanRate.record(nowMs);
          } else if (frame.kind === 'points') {
            this.points = frame;
            this.pointsReceived++;
            this.#pointsRate.record(nowMs);
          } else if (frame.kind === 'map') {
            this.sceneMap = frame;
          } else {
            const startMs = performance.now();
            this.fieldSeries.add(frame, this.#clock.epochMs());
            measurePlotWork(startMs);
          }
        },
        problem: (message) => this.#logProblem(message),
      },
    );
  }

  /** Wall-clock time (epoch ms), the clock the core stamps plot samples with. */
  epochMs(): number {
    return this.#clock.epochMs();
  }

  /** The clock the trail and plot samples are stamped with. */
  nowMs(): number {
    return this.#clock.nowMs();
  }

  start(): void {
    this.#socket.start();
    this.#rateTimer = this.#clock.setInterval(() => {
      const nowMs = this.#clock.nowMs();
      this.cameraFps = this.#cameraRate.rateHz(nowMs);
      this.scanHz = this.#scanRate.rateHz(nowMs);
      this.pointsHz = this.#pointsRate.rateHz(nowMs);
      this.failedAttempts = this.#socket.failedAttempts;
    }, RATE_REFRESH_MS);
  }

  stop(): void {
    this.#socket.stop();
    if (this.#rateTimer !== undefined) this.#clock.clearInterval(this.#rateTimer);
  }

  estop(): void {
    this.#send({ type: 'estop' }, 'E-stop not sent. The core stops the robot on its own once the cockpit falls silent.');
  }

  releaseEstop(heldMs: number): void {
    this.#send({ type: 'estop-release', heldMs: Math.round(heldMs) }, 'E-stop release not sent.');
  }

  takeOver(): void {
    this.#send({ type: 'take-over' }, 'Take over not sent.');
  }

  handBack(): void {
    this.#send({ type: 'hand-back' }, 'Hand back not sent.');
  }

  setAutonomy(enabled: boolean): void {
    this.#send({ type: 'set-autonomy', enabled }, 'Autonomy change not sent.');
  }

  setSpeedLimits(maxLinearMps: number, maxAngularRadps: number): void {
    this.#send({ type: 'set-speed-limits', maxLinearMps, maxAngularRadps }, 'Speed limits not sent.');
  }

  /** Asks the core to switch robots; the outcome arrives as `state.connection` (or `connectRefusal`). */
  connectRobot(robot: string, topics: RobotTopicsInput): void {
    this.#connectCount += 1;
    this.#pendingConnectId = `connect-${this.#connectCount}`;
    this.connectRefusal = undefined;
    this.#send({ type: 'connect-robot', id: this.#pendingConnectId, robot, topics }, 'Connect request not sent.');
  }

  // ── Plots of any field: live over the socket, in review over HTTP ──

  /** Plots these field paths live from now on (replacing the ones before); the core answers with plotStatus. */
  setPlots(paths: readonly string[]): void {
    this.#plotPaths = [...paths];
    // Not connected: nothing to say, the paths go out with the next connection's hello.
    this.#send({ type: 'set-plots', paths: [...paths] }, undefined);
  }

  // ── The 3D view's scene ──

  /** Asks for the scene in this fixed frame from now on (undefined: no scene, the 3D view is closed). */
  setSceneFrame(fixedFrame: string | undefined): void {
    if (fixedFrame === this.#sceneFrame) return;
    this.#sceneFrame = fixedFrame;
    // The last scene stays until the new frame's arrives (its frames list is the same tree); none once closed.
    if (fixedFrame === undefined) this.scene = undefined;
    this.#send(fixedFrame === undefined ? { type: 'set-scene', off: true } : { type: 'set-scene', fixedFrame }, undefined);
  }

  /** The topics one can plot and their numeric fields; throws an Error saying what went wrong. */
  async fetchPlotFields(): Promise<PlotFieldsResponse> {
    const parsed = PlotFieldsResponse.safeParse(await (await this.#fetchOk(Paths.plotFields)).json().catch(() => undefined));
    if (!parsed.success) throw new Error('the core sent a field list the cockpit cannot read');
    return parsed.data;
  }

  /** A field path over the log under review; throws an Error saying what went wrong (a path that names nothing). */
  async fetchReviewPlot(path: string): Promise<ReviewPlotResponse> {
    const response = await this.#fetchOk(`${Paths.reviewPlot}?path=${encodeURIComponent(path)}`);
    const parsed = ReviewPlotResponse.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Error('the core sent a series the cockpit cannot read');
    return parsed.data;
  }

  // ── Teaching (DESIGN §3): the core answers each with a message (state.learning.lastMessage) or an error ──

  /** Which moment G and B rate: 0 for now, else how long ago; back to now after each rating. */
  rateAgoMs = $state(0);

  rate(value: 'good' | 'bad'): void {
    const agoMs = this.rateAgoMs;
    this.#send(agoMs > 0 ? { type: 'rate', value, agoMs } : { type: 'rate', value }, 'Rating not sent.');
    this.rateAgoMs = 0;
  }

  undo(): void {
    this.#send({ type: 'undo' }, 'Undo not sent.');
  }

  answer(questionId: string, answer: PreferenceAnswerChoice): void {
    this.#send({ type: 'answer', questionId, answer }, 'Answer not sent.');
  }

  promoteVersion(version: number): void {
    this.#send({ type: 'promote-version', version }, 'Promote not sent.');
  }

  rollbackVersion(): void {
    this.#send({ type: 'rollback-version' }, 'Roll back not sent.');
  }

  holdVersions(held: boolean): void {
    this.#send({ type: 'hold-versions', held }, 'Hold not sent.');
  }

  setAutoPromote(enabled: boolean): void {
    this.#send({ type: 'set-auto-promote', enabled }, 'Auto-promote change not sent.');
  }

  retrainFromMemory(): void {
    this.#send({ type: 'retrain-from-memory' }, 'Retrain not sent.');
  }

  setQuestionPace(everySecs: number | null): void {
    this.#send({ type: 'set-question-pace', everySecs }, 'Question pace not sent.');
  }

  /** One side of a preference question: its frames, scans and path; throws an Error saying what went wrong. */
  async fetchClip(questionId: string, side: ClipSide): Promise<ClipResponse> {
    const response = await this.#fetchOk(clipPath(questionId, side));
    const parsed = ClipResponse.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Error('the core sent a clip the cockpit cannot read');
    return parsed.data;
  }

  /** One camera frame of a clip as an image blob (the API needs the token, so no plain <img src>). */
  async fetchClipFrame(questionId: string, side: ClipSide, index: number): Promise<Blob> {
    return (await this.#fetchOk(clipFramePath(questionId, side, index))).blob();
  }

  async #fetchOk(path: string): Promise<Response> {
    if (!this.#fetch) throw new Error('this cockpit cannot reach the core over HTTP');
    const response = await this.#fetch(path);
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => undefined);
      const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new Error(typeof message === 'string' ? message : `the core answered ${response.status}`);
    }
    return response;
  }

  /** The serial ports on the core's machine; throws an Error whose message says what went wrong. */
  async listSerialPorts(): Promise<SerialPortEntry[]> {
    if (!this.#fetch) throw new Error('this cockpit cannot reach the core over HTTP');
    const response = await this.#fetch(Paths.serialPorts);
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new Error(typeof message === 'string' ? message : `the core answered ${response.status}`);
    }
    const parsed = SerialPortsResponse.safeParse(body);
    if (!parsed.success) throw new Error('the core sent a serial port list the cockpit cannot read');
    return parsed.data.ports;
  }

  // ── Review mode (a recorded log played through the pipeline): the core answers refusals as errors ──

  replayPlay(): void {
    this.#send({ type: 'replay-play' }, 'Play not sent.');
  }

  replayPause(): void {
    this.#send({ type: 'replay-pause' }, 'Pause not sent.');
  }

  /** Moves the replay to a log time; the trail and plots start afresh there, since the robot jumped. */
  replaySeek(atMs: number): void {
    this.#forgetMotion();
    this.#send({ type: 'replay-seek', atMs }, 'Seek not sent.');
  }

  replaySpeed(speed: number): void {
    this.#send({ type: 'replay-speed', speed }, 'Playback speed not sent.');
  }

  /** Feeds the review loop's roles from these topics of the log; a refusal arrives as a toast, the topics in use as `state.review.topics`. */
  setReviewTopics(topics: Partial<Record<'camera' | 'scan' | 'joints' | 'imu' | 'odom', string>>): void {
    this.#reviewTopicsCount += 1;
    this.#send({ type: 'set-review-topics', id: `review-topics-${this.#reviewTopicsCount}`, topics }, 'Topic change not sent.');
  }

  /** Opens a moment "find similar" found: in the log under review, or in the log it lives in. */
  openMoment(file: string, atMs: number): void {
    this.#forgetMotion();
    this.#send({ type: 'open-moment', file, atMs }, 'Open moment not sent.');
  }

  /** The reviewed log's markers and series; throws an Error saying what went wrong. */
  async fetchReviewTimeline(): Promise<ReviewTimelineResponse> {
    const parsed = ReviewTimelineResponse.safeParse(await (await this.#fetchOk(Paths.reviewTimeline)).json().catch(() => undefined));
    if (!parsed.success) throw new Error('the core sent a timeline the cockpit cannot read');
    return parsed.data;
  }

  /** Moments in memory like the reviewed log's moment at `atMs`; throws an Error saying what went wrong. */
  async fetchSimilarMoments(atMs: number): Promise<SimilarMomentsResponse> {
    const path = `${Paths.reviewSimilar}?atMs=${encodeURIComponent(String(Math.round(atMs)))}`;
    const parsed = SimilarMomentsResponse.safeParse(await (await this.#fetchOk(path)).json().catch(() => undefined));
    if (!parsed.success) throw new Error('the core sent search results the cockpit cannot read');
    return parsed.data;
  }

  #forgetMotion(): void {
    this.trail.clear();
    this.motion.clear();
  }

  /** Drive commands are too frequent to report one by one; the connection banner covers them. */
  drive(command: DriveValue): void {
    this.#send({ type: 'drive', ...command }, undefined);
  }

  #send(request: Request, notSentMessage: string | undefined): void {
    const checked = Request.safeParse(request);
    if (!checked.success) {
      // A bug in the cockpit, not something the operator did: say so rather than send it.
      console.error('[reins] refusing to send an invalid request', request, checked.error.issues);
      this.toasts.push('error', `Cockpit bug: invalid '${request.type}' request not sent`);
      return;
    }
    if (!this.#socket.send(checked.data) && notSentMessage) {
      this.toasts.push('error', `Not connected to core: ${notSentMessage}`);
    }
  }

  #onEvent(event: Event): void {
    switch (event.type) {
      case 'hello':
      case 'state':
        // A new connection has no plots of its own: ask again for the ones the panel shows.
        if (event.type === 'hello' && this.#plotPaths.length > 0) this.#socket.send({ type: 'set-plots', paths: [...this.#plotPaths] });
        if (event.type === 'hello' && this.#sceneFrame !== undefined) this.#socket.send({ type: 'set-scene', fixedFrame: this.#sceneFrame });
        this.#record(event.state);
        this.#showLearningMessage(event.state, event.type === 'hello');
        this.state = event.state;
        break;
      case 'error':
        if (event.error.id !== undefined && event.error.id === this.#pendingConnectId) this.connectRefusal = event.error.message;
        else this.toasts.push('error', event.error.message);
        break;
      case 'ack':
        break;
      case 'plot-status':
        this.fieldSeries.reset(
          event.generation,
          event.series.map((series) => series.path),
        );
        this.plotStatus = event;
        break;
      case 'scene':
        // A scene for a frame asked before the latest set-scene is stale.
        if (event.fixedFrame === this.#sceneFrame) this.scene = event;
        break;
      case 'scene-drawings':
        this.sceneDrawings = event;
        break;
      case 'scene-robot':
        this.sceneRobot = event;
        break;
    }
  }

  #record(state: CockpitState): void {
    const nowMs = this.#clock.nowMs();
    // Another robot's odometry frame has nothing to do with the last one's.
    if (this.state && this.state.robotName !== state.robotName) {
      this.trail.clear();
      this.motion.clear();
    }
    if (state.odomPose) this.trail.record(state.odomPose, nowMs);
    this.motion.record(motionSample(state, nowMs));
  }

  /** Each new thing the operator's feedback did is shown once (not what was there before this cockpit connected). */
  #showLearningMessage(state: CockpitState, first: boolean): void {
    const message = state.learning?.lastMessage;
    if (!message || message.seq === this.#shownLearningMessage) return;
    const known = this.#shownLearningMessage !== undefined || !first;
    this.#shownLearningMessage = message.seq;
    if (known) this.toasts.push('info', message.text);
  }

  #logProblem(message: string): void {
    const nowMs = this.#clock.nowMs();
    const lastMs = this.#problemLoggedAtMs.get(message);
    if (lastMs !== undefined && nowMs - lastMs < PROBLEM_LOG_EVERY_MS) return;
    this.#problemLoggedAtMs.set(message, nowMs);
    console.warn(`[reins] ${message}`);
  }
}
