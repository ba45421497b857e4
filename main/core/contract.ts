// The one contract between the UI (renderer/, app/) and the core. Every request, response and event
// is a zod schema here; both sides import this file and nothing else from main/. It must stay free of
// Node APIs so the renderer can bundle it.
import { z } from 'zod';

export const API_VERSION = 1;

/** Text messages from the UI larger than this are refused with an error, the connection kept. */
export const MAX_REQUEST_BYTES = 16 * 1024;
/** Hard cap on any WebSocket frame from the UI: above this the socket is closed (1009). */
export const MAX_SOCKET_FRAME_BYTES = 1024 * 1024;

export const HEARTBEAT_PERIOD_MS = 100;
export const ESTOP_RELEASE_HOLD_MS = 1000;

// Plausibility bounds for operator input; the core's safety filter applies the real limits.
const speedMps = z.number().finite().min(-5).max(5);
const turnRateRadps = z.number().finite().min(-10).max(10);
const requestId = z.string().max(64).optional();

// ── Requests: UI → core, as JSON text frames on the WebSocket or POST /api/requests ──────────────

export const DriveRequest = z.strictObject({
  type: z.literal('drive'),
  id: requestId,
  linearMps: speedMps,
  angularRadps: turnRateRadps,
});

export const EStopRequest = z.strictObject({ type: z.literal('estop'), id: requestId });

export const EStopReleaseRequest = z.strictObject({
  type: z.literal('estop-release'),
  id: requestId,
  /** How long the operator held the release control; the core refuses a release held too briefly. */
  heldMs: z.number().finite().min(0),
});

export const HeartbeatRequest = z.strictObject({
  type: z.literal('heartbeat'),
  id: requestId,
  sentAtMs: z.number().finite(),
});

export const TakeOverRequest = z.strictObject({ type: z.literal('take-over'), id: requestId });
export const HandBackRequest = z.strictObject({ type: z.literal('hand-back'), id: requestId });

export const SetAutonomyRequest = z.strictObject({
  type: z.literal('set-autonomy'),
  id: requestId,
  enabled: z.boolean(),
});

export const SetSpeedLimitsRequest = z.strictObject({
  type: z.literal('set-speed-limits'),
  id: requestId,
  maxLinearMps: z.number().finite().positive().max(5),
  maxAngularRadps: z.number().finite().positive().max(10),
});

// ── Robot connections: which robot the cockpit drives, switched at runtime ──────────────────────

/** Longest robot address accepted: "sim", ws://HOST:PORT or serial:/dev/PATH?baud=N. */
export const MAX_ROBOT_ADDRESS_CHARS = 512;

/** The topic each stream uses when the operator does not say otherwise (the links' defaults). */
export const DEFAULT_ROBOT_TOPICS = Object.freeze({
  camera: '/camera/image_raw',
  scan: '/scan',
  joints: '/joint_states',
  imu: '/imu',
  odom: '/odom',
  command: '/cmd_vel',
});
export type RobotTopicRole = keyof typeof DEFAULT_ROBOT_TOPICS;

/** A ROS graph name: slash-separated words of letters, digits and underscores, not starting with a digit. */
export const ROS_TOPIC_PATTERN = /^\/?[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z_][A-Za-z0-9_]*)*$/;
const rosTopicName = z.string().max(256).regex(ROS_TOPIC_PATTERN, 'not a ROS topic name (letters, digits, _ and /, such as /camera/image_raw)');

export const RobotTopicsInput = z.strictObject({
  camera: rosTopicName.optional(),
  scan: rosTopicName.optional(),
  joints: rosTopicName.optional(),
  imu: rosTopicName.optional(),
  odom: rosTopicName.optional(),
  command: rosTopicName.optional(),
});
export type RobotTopicsInput = z.infer<typeof RobotTopicsInput>;

/** Connects to another robot; refused while anyone drives. The outcome arrives as `state.connection`. */
export const ConnectRobotRequest = z.strictObject({
  type: z.literal('connect-robot'),
  id: requestId,
  robot: z.string().trim().min(1, 'give the robot as sim, ws://HOST:PORT or serial:/dev/PATH?baud=N').max(MAX_ROBOT_ADDRESS_CHARS),
  topics: RobotTopicsInput.optional(),
});
export type ConnectRobotRequest = z.infer<typeof ConnectRobotRequest>;

export const RobotConnection = z.object({
  /** The robot as the operator gave it (the last one asked for, which may have failed). */
  robot: z.string(),
  status: z.enum(['connecting', 'connected', 'failed']),
  /** Why the last connect failed, in words; the previous robot stays attached. */
  error: z.string().optional(),
  /** The attached robot's command topic: the type it takes there, or why no command can be sent. */
  command: z.object({ topic: z.string(), type: z.string().optional(), problem: z.string().optional() }).optional(),
  /** The attached robot's clock minus the cockpit's, where the link estimates it. */
  clockOffsetMs: z.number().optional(),
});
export type RobotConnection = z.infer<typeof RobotConnection>;

export const SerialPortEntry = z.object({
  path: z.string(),
  manufacturer: z.string().optional(),
  serialNumber: z.string().optional(),
  /** What the USB vendor suggests the board is, when it is a common microcontroller bridge. */
  board: z.string().optional(),
  /** A microcontroller board or USB-serial bridge, rather than a built-in UART. */
  likelyRobot: z.boolean(),
});
export type SerialPortEntry = z.infer<typeof SerialPortEntry>;

/** GET /api/serial-ports: the serial ports on the core's machine, likely robot boards first. */
export const SerialPortsResponse = z.object({ ports: z.array(SerialPortEntry) });
export type SerialPortsResponse = z.infer<typeof SerialPortsResponse>;

// ── Learning from the operator (DESIGN §3): ratings, undo, preference answers, policy versions ─────

/** How far back a rating may reach by `agoMs`: the ledger keeps about this much of the session. */
export const MAX_RATE_AGO_MS = 120_000;

export const RateRequest = z.strictObject({
  type: z.literal('rate'),
  id: requestId,
  value: z.enum(['good', 'bad']),
  /** A past moment (epoch ms) to rate; omitted: the current moment. */
  atMs: z.number().finite().optional(),
  /** Or the moment this long before the core receives the request (no clock to agree on); not with atMs. */
  agoMs: z.number().finite().min(0).max(MAX_RATE_AGO_MS).optional(),
});

export const UndoRequest = z.strictObject({ type: z.literal('undo'), id: requestId });

export const PreferenceAnswerChoice = z.enum(['left', 'right', 'same', 'skip']);
export type PreferenceAnswerChoice = z.infer<typeof PreferenceAnswerChoice>;

export const AnswerRequest = z.strictObject({
  type: z.literal('answer'),
  id: requestId,
  questionId: z.string().min(1).max(64),
  answer: PreferenceAnswerChoice,
});

export const PromoteVersionRequest = z.strictObject({
  type: z.literal('promote-version'),
  id: requestId,
  version: z.number().int().min(1),
});

export const RollbackVersionRequest = z.strictObject({ type: z.literal('rollback-version'), id: requestId });

export const HoldVersionsRequest = z.strictObject({ type: z.literal('hold-versions'), id: requestId, held: z.boolean() });

export const SetAutoPromoteRequest = z.strictObject({ type: z.literal('set-auto-promote'), id: requestId, enabled: z.boolean() });

/** Retrain a fresh policy from everything the memory holds (the slow path), now. */
export const RetrainFromMemoryRequest = z.strictObject({ type: z.literal('retrain-from-memory'), id: requestId });

/**
 * The operator ends the robot's episode (the robot reached its goal or failed, and is put back or
 * reset): the next tick starts a new episode, and nothing learned or remembered joins ticks across it.
 */
export const EndEpisodeRequest = z.strictObject({ type: z.literal('end-episode'), id: requestId, outcome: z.enum(['reached-goal', 'failed']) });

/** Shortest pace the operator may set for preference questions. */
export const MIN_QUESTION_EVERY_SECS = 5;

export const SetQuestionPaceRequest = z.strictObject({
  type: z.literal('set-question-pace'),
  id: requestId,
  /** Seconds between questions; null: ask none. */
  everySecs: z.number().finite().min(MIN_QUESTION_EVERY_SECS).max(3600).nullable(),
});

// Review mode: a recorded log played through the pipeline (DESIGN §5 replay link).
export const MIN_REPLAY_SPEED = 0.25;
export const MAX_REPLAY_SPEED = 8;
export const MAX_REVIEW_PATH_CHARS = 4096;

export const ReplayPlayRequest = z.strictObject({ type: z.literal('replay-play'), id: requestId });
export const ReplayPauseRequest = z.strictObject({ type: z.literal('replay-pause'), id: requestId });
/** Moves the replay to a log time (epoch ms); the frame there is shown at once, playing or not. */
export const ReplaySeekRequest = z.strictObject({ type: z.literal('replay-seek'), id: requestId, atMs: z.number().finite() });
export const ReplaySpeedRequest = z.strictObject({
  type: z.literal('replay-speed'),
  id: requestId,
  speed: z.number().finite().min(MIN_REPLAY_SPEED).max(MAX_REPLAY_SPEED),
});
/** Opens a moment found by "find similar": the log it lives in (one the memory points at), at its time. */
export const OpenMomentRequest = z.strictObject({
  type: z.literal('open-moment'),
  id: requestId,
  file: z.string().min(1).max(MAX_REVIEW_PATH_CHARS),
  atMs: z.number().finite(),
});
/** Feeds the review loop's roles from these topics of the log (the others found by name, then by type); a topic that does not fit is refused in words. */
export const SetReviewTopicsRequest = z.strictObject({ type: z.literal('set-review-topics'), id: requestId, topics: RobotTopicsInput.omit({ command: true }) });

// ── Plots of any field: a topic and a field path, such as /odom.twist.twist.linear.x ────────────────

/** The most series one cockpit plots at once. */
export const MAX_PLOT_SERIES = 16;
export const MAX_FIELD_PATH_CHARS = 256;

/** User Timing measure name of the plot panel's own main-thread work; `reins bench ui` sums it per animation frame. */
export const PLOT_WORK_MEASURE = 'reins:plot-work';

export type FieldPathSegment = { kind: 'field'; name: string } | { kind: 'index'; index: number };

/** A parsed field path: the topic, then the fields and array indices that lead to one number. */
export interface FieldPath {
  text: string;
  topic: string;
  segments: FieldPathSegment[];
}

export type FieldPathParse = { ok: true; path: FieldPath } | { ok: false; message: string };

const TOPIC_CHAR = /[A-Za-z0-9_/]/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ARRAY_INDEX = /^\[(\d{1,6})\]/;

/** Reads `/topic.field[index].field…`; a problem is said with the character where it lies. */
export function parseFieldPath(text: string): FieldPathParse {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { ok: false, message: 'give a topic and a field, such as /odom.twist.twist.linear.x' };
  if (trimmed.length > MAX_FIELD_PATH_CHARS) return { ok: false, message: `a field path has at most ${MAX_FIELD_PATH_CHARS} characters` };
  if (!trimmed.startsWith('/')) return { ok: false, message: `a field path starts with its topic, such as /odom (got '${trimmed.slice(0, 24)}')` };
  let at = 0;
  while (at < trimmed.length && TOPIC_CHAR.test(trimmed[at]!)) at++;
  const topic = trimmed.slice(0, at);
  if (!ROS_TOPIC_PATTERN.test(topic)) return { ok: false, message: `'${topic}' is not a ROS topic name (letters, digits, _ and /)` };
  const segments: FieldPathSegment[] = [];
  while (at < trimmed.length) {
    const rest = trimmed.slice(at);
    if (rest.startsWith('.')) {
      const name = FIELD_NAME.exec(rest.slice(1))?.[0];
      if (name === undefined) return { ok: false, message: `expected a field name after '.' at character ${at + 2} of ${trimmed}` };
      segments.push({ kind: 'field', name });
      at += 1 + name.length;
      continue;
    }
    const index = ARRAY_INDEX.exec(rest);
    if (index) {
      segments.push({ kind: 'index', index: Number(index[1]) });
      at += index[0].length;
      continue;
    }
    const what = rest.startsWith('[') ? 'an array index is a whole number in brackets, such as [1],' : `'${rest[0]}' cannot follow`;
    return { ok: false, message: `${what} at character ${at + 1} of ${trimmed}` };
  }
  if (segments.length === 0) return { ok: false, message: `${topic} names a whole message: add the field to plot, such as ${topic}.header.stamp` };
  if (segments[0]!.kind !== 'field') return { ok: false, message: `${topic} is a message, not an array: start with a field, such as ${topic}.data[0]` };
  return { ok: true, path: { text: formatFieldPath(topic, segments), topic, segments } };
}

/** The path's text from its parts (the form parseFieldPath reads back). */
export function formatFieldPath(topic: string, segments: readonly FieldPathSegment[]): string {
  return topic + segments.map((segment) => (segment.kind === 'field' ? `.${segment.name}` : `[${segment.index}]`)).join('');
}

const fieldPathText = z
  .string()
  .max(MAX_FIELD_PATH_CHARS)
  .superRefine((text, context) => {
    const parsed = parseFieldPath(text);
    if (!parsed.ok) context.addIssue({ code: 'custom', message: parsed.message });
  });

/**
 * The series this UI connection plots live, replacing the ones it asked for before (an empty list:
 * none). The core answers with a plot-status event and streams the values as plot binary frames.
 */
export const SetPlotsRequest = z.strictObject({
  type: z.literal('set-plots'),
  id: requestId,
  paths: z.array(fieldPathText).max(MAX_PLOT_SERIES),
});
export type SetPlotsRequest = z.infer<typeof SetPlotsRequest>;

// ── The scene: the robot's model, its TF frames and its map, as the 3D view draws them ──────────────
export const MAX_FRAME_ID_CHARS = 256;
/** A TF frame id as ROS writes it (`base_link`, `odom`, `robot1/laser`); a leading slash is allowed, as tf2 strips it. */
export const FRAME_ID_PATTERN = /^\/?[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
const frameId = z.string().min(1).max(MAX_FRAME_ID_CHARS).regex(FRAME_ID_PATTERN, 'a TF frame id (letters, digits, _ . / -)');

/**
 * This UI connection draws the scene in this fixed frame from now on (the 3D panel sends it when it
 * opens and when the operator picks another; `off` stops the scene events). The core answers with
 * scene events a few times a second, a scene-robot event for each robot model, and the map as
 * occupancy-grid binary frames.
 */
export const SetSceneRequest = z.strictObject({ type: z.literal('set-scene'), id: requestId, fixedFrame: frameId.optional(), off: z.boolean().optional() });
export type SetSceneRequest = z.infer<typeof SetSceneRequest>;

export const Request = z.discriminatedUnion('type', [
  DriveRequest,
  EStopRequest,
  EStopReleaseRequest,
  HeartbeatRequest,
  TakeOverRequest,
  HandBackRequest,
  SetAutonomyRequest,
  SetSpeedLimitsRequest,
  ConnectRobotRequest,
  RateRequest,
  UndoRequest,
  AnswerRequest,
  PromoteVersionRequest,
  RollbackVersionRequest,
  HoldVersionsRequest,
  SetAutoPromoteRequest,
  SetQuestionPaceRequest,
  RetrainFromMemoryRequest,
  EndEpisodeRequest,
  ReplayPlayRequest,
  ReplayPauseRequest,
  ReplaySeekRequest,
  ReplaySpeedRequest,
  OpenMomentRequest,
  SetReviewTopicsRequest,
  SetPlotsRequest,
  SetSceneRequest,
]);
export type Request = z.infer<typeof Request>;
export type RequestType = Request['type'];

// ── Events: core → UI, as JSON text frames ────────────────────────────────────────────────────────

export const Presence = z.enum(['connecting', 'present', 'reconnecting', 'error', 'closed']);
export type Presence = z.infer<typeof Presence>;

/** Who the command going out comes from. `idle`: nobody drives and Reins publishes nothing. */
export const Driver = z.enum(['idle', 'operator', 'policy', 'estopped']);
export type Driver = z.infer<typeof Driver>;

export const Alert = z.object({
  key: z.string(),
  severity: z.enum(['info', 'warn', 'error']),
  message: z.string(),
  hint: z.string().optional(),
});
export type Alert = z.infer<typeof Alert>;

export const DriveValue = z.object({ linearMps: z.number(), angularRadps: z.number() });
export type DriveValue = z.infer<typeof DriveValue>;

export const StreamStatus = z.object({
  role: z.enum(['camera', 'scan', 'joints', 'imu', 'odom']),
  topic: z.string(),
  rateHz: z.number(),
  /** Age of the newest message, or undefined if none arrived yet. */
  ageMs: z.number().optional(),
  stale: z.boolean(),
});
export type StreamStatus = z.infer<typeof StreamStatus>;

export const SpeedLimits = z.object({ maxLinearMps: z.number(), maxAngularRadps: z.number() });

export const OdomPose = z.object({ xM: z.number(), yM: z.number(), yawRad: z.number() });
export type OdomPose = z.infer<typeof OdomPose>;

/** One encoder: on (encoded at the last tick), no-data (its stream is missing or stale), off (refused or failed: see problem), not-configured (not in the manifest). */
export const ModalityStatus = z.object({
  modality: z.enum(['camera', 'lidar', 'proprio']),
  state: z.enum(['on', 'no-data', 'off', 'not-configured']),
  file: z.string().optional(),
  /** onnxruntime's execution provider the encoder runs on. */
  provider: z.enum(['cpu', 'cuda']).optional(),
  problem: z.string().optional(),
});
export type ModalityStatus = z.infer<typeof ModalityStatus>;

export const PerceptionStatus = z.object({
  /** The encoder manifest's version. */
  version: z.string(),
  /** Why the encoders run on the CPU although a GPU was wanted. */
  providerNote: z.string().optional(),
  intraOpThreads: z.number().int().positive(),
  interOpThreads: z.number().int().positive(),
  modalities: z.array(ModalityStatus),
});
export type PerceptionStatus = z.infer<typeof PerceptionStatus>;

/** The world model: where it runs, how its learner is doing, and what it made of the last tick. */
export const WorldModelStatus = z.object({
  preset: z.string(),
  /** The TF.js backend of the control loop's filter, and why faster ones did not load. */
  backend: z.string(),
  backendNote: z.string().optional(),
  /** The weights the filter uses ('initial' before the learner's first). */
  version: z.string(),
  learner: z.enum(['off', 'starting', 'training', 'waiting', 'paused', 'stopping', 'stopped', 'failed']),
  /** Why the learner waits: not enough ticks yet, the replay ratio is met, paused, after errors. */
  waitingFor: z.string().optional(),
  trainSteps: z.number().int().nonnegative(),
  stepsPerSec: z.number().optional(),
  stepMs: z.number().optional(),
  loss: z.number().optional(),
  decoderLoss: z.number().optional(),
  klNats: z.number().optional(),
  replayRatio: z.number().optional(),
  /**
   * The surprise ratio the cockpit shows: how many times its usual error the most surprised modality's
   * prediction missed by (1 is ordinary), held at its peak over the last second.
   */
  surpriseRatio: z.number().optional(),
  /** The modality whose prediction missed most: what the surprise ratio is about. */
  surpriseModality: z.string().optional(),
  /** The surprise ratio is at or above the alarm threshold (SURPRISE_ALARM_RATIO in core/belief.ts): the cockpit names the modality. */
  surpriseAlarm: z.boolean().optional(),
  /** The last tick's KL(posterior ‖ prior) in nats, and its own prediction error. */
  surpriseNats: z.number().optional(),
  predictionError: z.number().optional(),
  /**
   * Where the world model expects the robot to go under the command in effect: points in the robot's
   * frame (x forward, y left, metres) from the robot on, over the horizon; readoutR2 says how well
   * speed reads from its imagined proprioception on held-out ticks.
   */
  predictedPath: z.object({ pointsM: z.array(z.tuple([z.number(), z.number()])), horizonSecs: z.number(), readoutR2: z.number() }).optional(),
  /** Why there is no predicted path. */
  pathNote: z.string().optional(),
  /** Something the operator should know: a refused checkpoint, a learner error. */
  note: z.string().optional(),
});
export type WorldModelStatus = z.infer<typeof WorldModelStatus>;

/** Inclusive steps of one episode and the wall times they span: one side of a preference question. */
export const ClipSpan = z.object({ episodeId: z.string(), startStep: z.number().int(), endStep: z.number().int(), startMs: z.number(), endMs: z.number() });
export type ClipSpan = z.infer<typeof ClipSpan>;

export const PreferenceQuestionStatus = z.object({
  id: z.string(),
  askedAtMs: z.number(),
  expiresAtMs: z.number(),
  left: ClipSpan,
  right: ClipSpan,
});
export type PreferenceQuestionStatus = z.infer<typeof PreferenceQuestionStatus>;

export const PolicyVersionStatus = z.object({
  number: z.number().int().positive(),
  /** The policy's own version string. */
  name: z.string(),
  createdAtMs: z.number(),
  /** What the update learned from; absent for v1. */
  trainedOn: z
    .object({ interventions: z.number(), preferences: z.number(), ratings: z.number(), operatorTicks: z.number(), fromMemory: z.boolean().optional() })
    .optional(),
  /** Seconds this version drove (driver 'policy'). */
  policyDrivingSecs: z.number().nonnegative(),
  /** Interventions per minute of policy driving; absent until it has driven long enough to tell. */
  interventionRatePerMin: z.number().nonnegative().optional(),
  interventions: z.number().int().nonnegative(),
  /** Median seconds to the goal over the latest episodes it drove alone start to end (no takeover), and how many; absent before one. */
  goalSecs: z.number().nonnegative().optional(),
  goalEpisodes: z.number().int().positive().optional(),
  /** The promotion gate's verdict on it as a candidate (the off-policy critics' evaluation), and why. */
  evaluation: z.object({ verdict: z.enum(['promote', 'refuse', 'blocked']), reason: z.string() }).optional(),
  good: z.number().int().nonnegative(),
  bad: z.number().int().nonnegative(),
  driving: z.boolean(),
  /** Its weights are still kept, so it can be promoted (the newest, the roll-back steps and v1 are). */
  promotable: z.boolean(),
});
export type PolicyVersionStatus = z.infer<typeof PolicyVersionStatus>;

/** Learning from the operator: what they taught, the open question, and the policy versions. */
export const LearningStatus = z.object({
  /** A learner is attached: feedback trains new versions. Off: feedback is still recorded. */
  learning: z.boolean(),
  /** Why learning is off, or something the operator should know. */
  note: z.string().optional(),
  counts: z.object({ interventions: z.number().int().nonnegative(), answers: z.number().int().nonnegative(), ratings: z.number().int().nonnegative() }),
  /** A takeover is counting as an intervention right now. */
  interventionActive: z.boolean(),
  /** A rating or answer stands that U would withdraw. */
  canUndo: z.boolean(),
  question: PreferenceQuestionStatus.optional(),
  /** Seconds between preference questions; absent: none asked. */
  questionEverySecs: z.number().optional(),
  /** The newest versions, the driving one and v1 (older candidates are left out of the state). */
  versions: z.array(PolicyVersionStatus),
  versionCount: z.number().int().positive(),
  drivingVersion: z.number().int().positive(),
  held: z.boolean(),
  autoPromote: z.boolean(),
  /**
   * The intervention rate over the policy's driving time, cut into stretches of equal length (whichever
   * versions drove them), oldest first; only completed stretches. Shows whether the robot needs the
   * operator less as versions come.
   */
  interventionTrend: z.object({
    stretchSecs: z.number().positive(),
    stretches: z.array(
      z.object({
        firstVersion: z.number().int().positive(),
        lastVersion: z.number().int().positive(),
        interventions: z.number().int().nonnegative(),
        ratePerMin: z.number().nonnegative(),
      }),
    ),
  }),
  /**
   * While the policy drives: the reward ensemble's spread on its latest ticks against its spread where
   * the operator's feedback taught it. `drifting`: the policy is where the reward is unknown.
   */
  rewardDrift: z
    .object({ recentSpread: z.number().nonnegative(), taughtSpread: z.number().positive(), drifting: z.boolean(), sinceMs: z.number().optional() })
    .optional(),
  /**
   * The off-policy critics' value of the moment on screen (the latest tick and the command in effect):
   * their mean and their spread across critics; absent while the critics are off or not yet trained.
   */
  critic: z.object({ value: z.number(), spread: z.number().nonnegative() }).optional(),
  /** The slow path: retraining from the whole memory; absent when the session has none (no memory). */
  slowPath: z
    .object({
      running: z.boolean(),
      /** Seconds between scheduled retrains (each only when something new was taught); 0: none scheduled. */
      everySecs: z.number().nonnegative(),
      last: z.object({ atMs: z.number(), ok: z.boolean(), message: z.string() }).optional(),
    })
    .optional(),
  /** The last thing the operator's feedback did, for the cockpit to show once (seq changes each time). */
  lastMessage: z.object({ seq: z.number().int(), text: z.string(), atMs: z.number() }).optional(),
});
export type LearningStatus = z.infer<typeof LearningStatus>;

/** The log under review: where the replay stands, and what could not be read of it. */
export const ReviewStatus = z.object({
  file: z.string(),
  fileName: z.string(),
  /** Log times (epoch ms) of the first and last message. */
  startMs: z.number(),
  endMs: z.number(),
  positionMs: z.number(),
  playing: z.boolean(),
  speed: z.number(),
  /** What was lost or cannot be shown (a truncated file, a bad chunk, an unknown encoding), in words. */
  problems: z.array(z.string()),
  /** The replay writes re-scored memory rows (an explicit option); off by default. */
  rescoring: z.boolean(),
  /** Which of the log's topics feeds each of the loop's roles. */
  topics: z.object({ camera: z.string(), scan: z.string(), joints: z.string(), imu: z.string(), odom: z.string() }).optional(),
  /** The log's topics that could feed each role (by type), for the operator to choose from. */
  topicChoices: z
    .object({ camera: z.array(z.string()), scan: z.array(z.string()), joints: z.array(z.string()), imu: z.array(z.string()), odom: z.array(z.string()) })
    .optional(),
  /** A log being opened that has no usable summary, read through to index it: its name and the fraction read. */
  indexing: z.object({ fileName: z.string(), fraction: z.number().min(0).max(1) }).optional(),
});
export type ReviewStatus = z.infer<typeof ReviewStatus>;

export const CockpitState = z.object({
  robotName: z.string(),
  simulated: z.boolean(),
  presence: Presence,
  driver: Driver,
  estopped: z.boolean(),
  /** The operator has latched a takeover: the policy is not driving even when autonomy is on. */
  tookOver: z.boolean(),
  autonomy: z.boolean(),
  policyVersion: z.string(),
  /** The last command sent to the robot, after the safety filter. */
  lastCommand: DriveValue,
  /** When lastCommand left the core (epoch ms); undefined before the first. */
  lastCommandAtMs: z.number().optional(),
  /** Commands the safety filter has changed (speed or acceleration limits) since the core started. */
  commandsClipped: z.number().int().nonnegative(),
  /** The robot's measured speed, from its odometry. */
  measuredSpeed: DriveValue.optional(),
  /** The robot's pose in its odometry frame, from the latest fresh odometry (metres, radians). */
  odomPose: OdomPose.optional(),
  speedLimits: SpeedLimits,
  controlRateHz: z.number(),
  tickLatencyMs: z.object({ p50: z.number(), p95: z.number(), p99: z.number() }),
  /** Ticks skipped since the core started: the last one was still running, or the core stalled past them. */
  ticksSkipped: z.number().int().nonnegative(),
  /** The encoders: where they run, with how many threads, and which modalities are on. */
  perception: PerceptionStatus,
  /** Absent when the core runs without a world model. */
  worldModel: WorldModelStatus.optional(),
  streams: z.array(StreamStatus),
  alerts: z.array(Alert),
  /** The robot the operator last asked for, and how connecting to it went. */
  connection: RobotConnection,
  /** Absent when the core runs without a learning session. */
  learning: LearningStatus.optional(),
  /** Present in review mode: the core plays a recorded log instead of driving a robot. */
  review: ReviewStatus.optional(),
});
export type CockpitState = z.infer<typeof CockpitState>;

export const HelloEvent = z.object({
  type: z.literal('hello'),
  apiVersion: z.literal(API_VERSION),
  state: CockpitState,
});

export const StateEvent = z.object({ type: z.literal('state'), state: CockpitState });

export const ErrorCode = z.enum([
  'bad-json',
  'bad-request',
  'unknown-request',
  'too-large',
  'refused',
  'unauthorized',
  'forbidden-origin',
  'not-found',
  'method-not-allowed',
  'unavailable',
  'rate-limited',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
  /** The request's id, when the request carried one that could be read. */
  id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ErrorEvent = z.object({ type: z.literal('error'), error: ErrorBody });

/** Sent for a request that carried an id, once it has been carried out. */
export const AckEvent = z.object({ type: z.literal('ack'), id: z.string(), requestType: z.string() });

/** One live series: its path as the core read it, and why it shows nothing, in words, when it cannot. */
export const PlotSeriesStatus = z.object({ path: z.string(), type: z.string().optional(), problem: z.string().optional() });
export type PlotSeriesStatus = z.infer<typeof PlotSeriesStatus>;

/**
 * The live series of this connection, in the order asked; sent after each set-plots and whenever a
 * series' problem comes or goes. `generation` counts set-plots requests: plot frames carry it too.
 */
export const PlotStatusEvent = z.object({ type: z.literal('plot-status'), generation: z.number().int().nonnegative(), series: z.array(PlotSeriesStatus) });
export type PlotStatusEvent = z.infer<typeof PlotStatusEvent>;

/** A pose: translation in metres (x, y, z) and a unit quaternion (x, y, z, w). */
export const ScenePose = z.object({ t: z.tuple([z.number(), z.number(), z.number()]), q: z.tuple([z.number(), z.number(), z.number(), z.number()]) });
export type ScenePose = z.infer<typeof ScenePose>;

/** One TF frame as the tree knows it now. */
export const SceneFrame = z.object({
  frame: z.string(),
  /** Its parent in the tree; absent for a root. */
  parent: z.string().optional(),
  /** Its pose in the fixed frame now; absent when it cannot be placed (then `problem` says why, in words). */
  pose: ScenePose.optional(),
  /** From /tf_static (never stale). */
  static: z.boolean(),
  /** Since its last transform arrived (dynamic frames). */
  ageMs: z.number().optional(),
  /** Transforms a second over the last few seconds (dynamic frames). */
  rateHz: z.number().optional(),
  problem: z.string().optional(),
});
export type SceneFrame = z.infer<typeof SceneFrame>;

/** The occupancy grid's metadata; its cells come as occupancy-grid binary frames with the same revision. */
export const SceneMap = z.object({
  topic: z.string(),
  revision: z.number().int().nonnegative(),
  /** The grid's frame (OccupancyGrid header.frame_id) and its origin cell's pose in that frame. */
  frame: z.string(),
  origin: ScenePose,
  /** Cells as sent (the robot's grid thinned to at most MAX_MAP_CELLS_A_SIDE a side) and their size. */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  resolutionM: z.number().positive(),
  /** The origin cell's corner in the fixed frame now (its frame's pose composed with `origin`); absent when its frame cannot be placed (see problem). */
  pose: ScenePose.optional(),
  /** Why it is not to be drawn: its frame cannot be placed, or its width × height disagrees with its data (then no cells come). */
  problem: z.string().optional(),
});
export type SceneMap = z.infer<typeof SceneMap>;

/**
 * The scene for this connection's fixed frame, a few times a second: every TF frame, the problems of
 * the tree in words (a cycle, a transform with a NaN, the fixed frame unknown), the robot model's
 * revision and source (its text comes once per revision in a scene-robot event), the map, and the
 * frames the scan and the point cloud are stamped in.
 */
export const SceneEvent = z.object({
  type: z.literal('scene'),
  /** As the set-scene asked for it (poses are in it, a leading slash dropped as tf2 does). */
  fixedFrame: z.string(),
  frames: z.array(SceneFrame),
  problems: z.array(z.string()),
  /** The robot model: revision 0 while there is none (problem says why); `source` in words (`/robot_description`, `file /path/robot.urdf`). */
  robot: z.object({ revision: z.number().int().nonnegative(), source: z.string(), problem: z.string().optional() }).optional(),
  map: SceneMap.optional(),
  sensorFrames: z.object({ scan: z.string().optional(), points: z.string().optional() }),
});
export type SceneEvent = z.infer<typeof SceneEvent>;

/** The robot's model as it gave it (URDF XML), once per revision; the renderer parses it and says what it could not. */
export const SceneRobotEvent = z.object({ type: z.literal('scene-robot'), revision: z.number().int().nonnegative(), source: z.string(), urdf: z.string() });
export type SceneRobotEvent = z.infer<typeof SceneRobotEvent>;

/** The most markers (a path counts as one) the scene keeps at once, over all topics; more are refused, said in words. */
export const MAX_SCENE_MARKERS = 2000;
/** The most points the scene's paths and markers hold together; a marker that would pass it is refused, said in words. */
export const MAX_SCENE_POINTS = 50_000;

/** What a path or a marker is drawn as: a path, or a visualization_msgs/Marker type. */
export const SceneShapeKind = z.enum([
  'path',
  'arrow',
  'cube',
  'sphere',
  'cylinder',
  'line-strip',
  'line-list',
  'cube-list',
  'sphere-list',
  'points',
  'triangle-list',
  'text',
]);
export type SceneShapeKind = z.infer<typeof SceneShapeKind>;

/** One path (nav_msgs/Path) or marker (visualization_msgs/Marker) as the 3D view draws it, checked by the core. */
export const SceneShape = z.object({
  /** Its identity: the topic for a path (`/plan`), topic, namespace and id for a marker (`/markers goal/0`). */
  key: z.string(),
  /** Bumped whenever what is drawn changes: the view rebuilds a shape only then. */
  version: z.number().int().nonnegative(),
  kind: SceneShapeKind,
  /**
   * The TF frame it hangs on: its own for a path and a frame-locked marker; for any other marker the
   * root of its frame's tree when it came, so that it stays where it was put (rviz's rule).
   */
  frame: z.string(),
  /** Its pose in that frame. */
  pose: ScenePose,
  /**
   * Metres, as the Marker message means them: a box's, sphere's or cylinder's size; a line's width (x);
   * an arrow's length, width and height (with two points: shaft and head diameter, head length); a
   * point's width (x); a text's height (z).
   */
  scale: z.tuple([z.number(), z.number(), z.number()]),
  /** Red, green, blue, alpha, 0–1. */
  colour: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  /** x, y, z per point in the pose's frame: a path's positions, a line's or a list's points, an arrow's start and end. */
  pointsM: z.array(z.number()).optional(),
  /** Red, green, blue, alpha per point, where the marker gives a colour per point. */
  colours: z.array(z.number()).optional(),
  text: z.string().optional(),
});
export type SceneShape = z.infer<typeof SceneShape>;

/**
 * The robot's planned paths and markers, whenever they change (at most once per scene event): every
 * shape the view should draw now. Shapes that cannot be placed in this connection's fixed frame are
 * sent too; the scene event's problems say why they are not drawn.
 */
export const SceneDrawingsEvent = z.object({ type: z.literal('scene-drawings'), revision: z.number().int().nonnegative(), shapes: z.array(SceneShape) });
export type SceneDrawingsEvent = z.infer<typeof SceneDrawingsEvent>;

export const Event = z.discriminatedUnion('type', [
  HelloEvent,
  StateEvent,
  ErrorEvent,
  AckEvent,
  PlotStatusEvent,
  SceneEvent,
  SceneRobotEvent,
  SceneDrawingsEvent,
]);
export type Event = z.infer<typeof Event>;

// ── HTTP responses ────────────────────────────────────────────────────────────────────────────────

export const HealthResponse = z.object({ ok: z.literal(true) });
export const StatusResponse = z.object({ apiVersion: z.literal(API_VERSION), state: CockpitState });
export const AcceptedResponse = z.object({ ok: z.literal(true), requestType: z.string() });
export const ErrorResponse = z.object({ error: ErrorBody });

/** HTTP paths and the WebSocket path. */
export const Paths = {
  health: '/healthz',
  status: '/api/status',
  requests: '/api/requests',
  socket: '/api/socket',
  serialPorts: '/api/serial-ports',
  /** GET /api/clips/QUESTION/left|right: a ClipResponse; …/frames/N: that camera frame as an image. */
  clips: '/api/clips',
  /** GET: the log's markers and plotted series (ReviewTimelineResponse). */
  reviewTimeline: '/api/review/timeline',
  /** GET ?atMs=T: moments across sessions like the log's moment at T (SimilarMomentsResponse). */
  reviewSimilar: '/api/review/similar',
  /** GET: the numeric fields each topic offers to plot (PlotFieldsResponse). */
  plotFields: '/api/plot/fields',
  /** GET ?path=/topic.field: that field over the whole log under review (ReviewPlotResponse). */
  reviewPlot: '/api/review/plot',
  /** GET ?uri=package://PKG/FILE: a file the robot serves (a mesh of its model), as bytes; 501 where the link cannot fetch files. */
  robotAsset: '/api/robot-asset',
} as const;

/** The topics one can plot from, and the paths of their numeric fields (where the topic's type is known). */
export const PlotFieldsResponse = z.object({
  topics: z.array(z.object({ topic: z.string(), type: z.string().optional(), fields: z.array(z.string()) })),
});
export type PlotFieldsResponse = z.infer<typeof PlotFieldsResponse>;

/** One field path over the log under review, thinned to a bounded number of points; null where a message lacks it. */
export const ReviewPlotResponse = z.object({ path: z.string(), timesMs: z.array(z.number()), values: z.array(z.number().nullable()) });
export type ReviewPlotResponse = z.infer<typeof ReviewPlotResponse>;

export const MarkerKind = z.enum(['intervention', 'surprise', 'answer', 'rating', 'alert']);
export type MarkerKind = z.infer<typeof MarkerKind>;

export const ReviewMarker = z.object({ kind: MarkerKind, atMs: z.number(), label: z.string() });
export type ReviewMarker = z.infer<typeof ReviewMarker>;

/** One numeric field over the log's time; null where it has no value. */
export const ReviewSeries = z.object({ name: z.string(), unit: z.string(), timesMs: z.array(z.number()), values: z.array(z.number().nullable()) });
export type ReviewSeries = z.infer<typeof ReviewSeries>;

export const ReviewTimelineResponse = z.object({
  file: z.string(),
  startMs: z.number(),
  endMs: z.number(),
  markers: z.array(ReviewMarker),
  series: z.array(ReviewSeries),
});
export type ReviewTimelineResponse = z.infer<typeof ReviewTimelineResponse>;

export const SimilarMoment = z.object({
  file: z.string(),
  fileName: z.string(),
  atMs: z.number(),
  /** In the memory's distance (squared L2): smaller is closer. */
  distance: z.number(),
  episodeId: z.string(),
  actedBy: z.string(),
  /** The match lives in the log under review. */
  sameFile: z.boolean(),
});
export type SimilarMoment = z.infer<typeof SimilarMoment>;

export const SimilarMomentsResponse = z.object({
  atMs: z.number(),
  matches: z.array(SimilarMoment),
  /** Why there are fewer matches than asked, in words (no memory, other encoders…). */
  note: z.string().optional(),
});
export type SimilarMomentsResponse = z.infer<typeof SimilarMomentsResponse>;

export const ClipSide = z.enum(['left', 'right']);
export type ClipSide = z.infer<typeof ClipSide>;

/** One side of a preference question, read back from the session's recording. */
export const ClipResponse = z.object({
  questionId: z.string(),
  side: ClipSide,
  startMs: z.number(),
  endMs: z.number(),
  /** Camera frames in time order; each is fetched as an image from …/frames/INDEX. */
  frames: z.array(z.object({ index: z.number().int().nonnegative(), timeMs: z.number() })),
  scans: z.array(
    z.object({
      timeMs: z.number(),
      angleMinRad: z.number(),
      angleIncrementRad: z.number(),
      rangeMaxM: z.number(),
      rangesM: z.array(z.number().nullable()),
    }),
  ),
  /** The robot's odometry poses over the clip (metres, radians). */
  path: z.array(z.object({ timeMs: z.number(), xM: z.number(), yM: z.number(), yawRad: z.number() })),
});
export type ClipResponse = z.infer<typeof ClipResponse>;

export function clipPath(questionId: string, side: ClipSide): string {
  return `${Paths.clips}/${encodeURIComponent(questionId)}/${side}`;
}

export function clipFramePath(questionId: string, side: ClipSide, index: number): string {
  return `${clipPath(questionId, side)}/frames/${index}`;
}

// ── Binary frames: core → UI, for high-rate streams ──────────────────────────────────────────────
// Little-endian. Byte 0 is the frame kind; the header is 16 bytes; the payload follows.

export const FRAME_HEADER_BYTES = 16;
export const FrameKind = { cameraRgb: 1, laserScan: 2, pointCloud: 3, plotSamples: 4, occupancyGrid: 5 } as const;
/** A map larger than this many cells a side is thinned (max-pooled, so walls stay) to fit one frame. */
export const MAX_MAP_CELLS_A_SIDE = 1000;
/** The most points a point-cloud frame carries: a larger cloud is thinned to this many (about 240 kB). */
export const MAX_PREVIEW_POINTS = 20_000;

export interface CameraFrame {
  kind: 'camera';
  width: number;
  height: number;
  /** The source image's header stamp (epoch ms, float64 in header bytes 8–15); NaN when unknown. */
  stampMs: number;
  /** Tightly packed RGB, 3 bytes per pixel. */
  rgb: Uint8Array;
}

export interface ScanFrame {
  kind: 'scan';
  angleMinRad: number;
  angleIncrementRad: number;
  rangeMaxM: number;
  /** NaN where the beam has no valid reading, rangeMax+ where nothing was hit. */
  rangesM: Float32Array;
}

export interface PointCloudFrame {
  kind: 'points';
  /** The source cloud's header stamp (epoch ms); NaN when unknown. */
  stampMs: number;
  /** Points in the cloud's own frame (x forward, y left, z up for base_link): x, y, z in metres, 3 per point. */
  xyzM: Float32Array;
}

/** New values of the live plot series since the last frame: each series by its place in the set-plots request. */
export interface PlotSamplesFrame {
  kind: 'plot';
  /** The set-plots request these series answer (PlotStatusEvent.generation); older frames are stale. */
  generation: number;
  series: PlotSamples[];
}

export interface PlotSamples {
  index: number;
  /** The source stamps (epoch ms, on the cockpit's clock) and values, one each per sample. */
  timesMs: Float64Array;
  values: Float64Array;
}

/** The map's cells, row-major from its origin (OccupancyGrid order): -1 unknown, 0–100 occupancy. */
export interface OccupancyGridFrame {
  kind: 'map';
  /** SceneMap.revision: cells of an older revision are stale. */
  revision: number;
  width: number;
  height: number;
  cells: Int8Array;
}

export type BinaryFrame = CameraFrame | ScanFrame | PointCloudFrame | PlotSamplesFrame | OccupancyGridFrame;

/** Camera header: kind (byte 0), width (2–3), height (4–5), source stamp in ms as float64 (8–15). */
export function encodeCameraFrame(width: number, height: number, stampMs: number, rgb: Uint8Array): Uint8Array {
  if (rgb.length !== width * height * 3) {
    throw new RangeError(`camera frame ${width}x${height} needs ${width * height * 3} bytes, got ${rgb.length}`);
  }
  const out = new Uint8Array(FRAME_HEADER_BYTES + rgb.length);
  const view = new DataView(out.buffer);
  view.setUint8(0, FrameKind.cameraRgb);
  view.setUint16(2, width, true);
  view.setUint16(4, height, true);
  view.setFloat64(8, stampMs, true);
  out.set(rgb, FRAME_HEADER_BYTES);
  return out;
}

export function encodeScanFrame(angleMinRad: number, angleIncrementRad: number, rangeMaxM: number, rangesM: Float32Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + rangesM.length * 4);
  const view = new DataView(out.buffer);
  view.setUint8(0, FrameKind.laserScan);
  view.setUint16(2, rangesM.length, true);
  view.setFloat32(4, angleMinRad, true);
  view.setFloat32(8, angleIncrementRad, true);
  view.setFloat32(12, rangeMaxM, true);
  for (let i = 0; i < rangesM.length; i++) view.setFloat32(FRAME_HEADER_BYTES + i * 4, rangesM[i]!, true);
  return out;
}

/** Point-cloud header: kind (byte 0), point count as uint32 (4–7), source stamp in ms as float64 (8–15); then x, y, z float32 per point. */
export function encodePointCloudFrame(stampMs: number, xyzM: Float32Array): Uint8Array {
  if (xyzM.length % 3 !== 0) throw new RangeError(`point cloud frame needs x, y, z per point; got ${xyzM.length} numbers`);
  const out = new Uint8Array(FRAME_HEADER_BYTES + xyzM.length * 4);
  const view = new DataView(out.buffer);
  view.setUint8(0, FrameKind.pointCloud);
  view.setUint32(4, xyzM.length / 3, true);
  view.setFloat64(8, stampMs, true);
  for (let i = 0; i < xyzM.length; i++) view.setFloat32(FRAME_HEADER_BYTES + i * 4, xyzM[i]!, true);
  return out;
}

/** Decodes a binary frame; throws a RangeError naming the problem for anything malformed. */
export function decodeBinaryFrame(bytes: Uint8Array): BinaryFrame {
  if (bytes.length < FRAME_HEADER_BYTES) throw new RangeError(`binary frame of ${bytes.length} bytes is shorter than its header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kind = view.getUint8(0);
  if (kind === FrameKind.cameraRgb) {
    const width = view.getUint16(2, true);
    const height = view.getUint16(4, true);
    const expected = FRAME_HEADER_BYTES + width * height * 3;
    if (bytes.length !== expected) throw new RangeError(`camera frame ${width}x${height} should be ${expected} bytes, is ${bytes.length}`);
    return { kind: 'camera', width, height, stampMs: view.getFloat64(8, true), rgb: bytes.subarray(FRAME_HEADER_BYTES) };
  }
  if (kind === FrameKind.laserScan) {
    const count = view.getUint16(2, true);
    const expected = FRAME_HEADER_BYTES + count * 4;
    if (bytes.length !== expected) throw new RangeError(`scan frame of ${count} beams should be ${expected} bytes, is ${bytes.length}`);
    const rangesM = new Float32Array(count);
    for (let i = 0; i < count; i++) rangesM[i] = view.getFloat32(FRAME_HEADER_BYTES + i * 4, true);
    return {
      kind: 'scan',
      angleMinRad: view.getFloat32(4, true),
      angleIncrementRad: view.getFloat32(8, true),
      rangeMaxM: view.getFloat32(12, true),
      rangesM,
    };
  }
  if (kind === FrameKind.pointCloud) {
    const count = view.getUint32(4, true);
    const expected = FRAME_HEADER_BYTES + count * 12;
    if (bytes.length !== expected) throw new RangeError(`point cloud frame of ${count} points should be ${expected} bytes, is ${bytes.length}`);
    const xyzM = new Float32Array(count * 3);
    for (let i = 0; i < xyzM.length; i++) xyzM[i] = view.getFloat32(FRAME_HEADER_BYTES + i * 4, true);
    return { kind: 'points', stampMs: view.getFloat64(8, true), xyzM };
  }
  if (kind === FrameKind.plotSamples) return decodePlotSamples(view, bytes.length);
  if (kind === FrameKind.occupancyGrid) {
    const width = view.getUint16(2, true);
    const height = view.getUint16(4, true);
    const expected = FRAME_HEADER_BYTES + width * height;
    if (bytes.length !== expected) throw new RangeError(`map frame ${width}x${height} should be ${expected} bytes, is ${bytes.length}`);
    const cells = new Int8Array(bytes.buffer, bytes.byteOffset + FRAME_HEADER_BYTES, width * height);
    return { kind: 'map', revision: view.getUint32(8, true), width, height, cells };
  }
  throw new RangeError(`unknown binary frame kind ${kind}`);
}

/** Map header: kind (byte 0), width (2–3), height (4–5), revision as uint32 (8–11); then width × height int8 cells. */
export function encodeOccupancyGridFrame(revision: number, width: number, height: number, cells: Int8Array): Uint8Array {
  if (width > MAX_MAP_CELLS_A_SIDE || height > MAX_MAP_CELLS_A_SIDE)
    throw new RangeError(`map frame ${width}x${height} is over ${MAX_MAP_CELLS_A_SIDE} a side`);
  if (cells.length !== width * height) throw new RangeError(`map frame ${width}x${height} needs ${width * height} cells, got ${cells.length}`);
  const out = new Uint8Array(FRAME_HEADER_BYTES + cells.length);
  const view = new DataView(out.buffer);
  view.setUint8(0, FrameKind.occupancyGrid);
  view.setUint16(2, width, true);
  view.setUint16(4, height, true);
  view.setUint32(8, revision, true);
  out.set(new Uint8Array(cells.buffer, cells.byteOffset, cells.length), FRAME_HEADER_BYTES);
  return out;
}

/** Bytes before each series' samples in a plot frame: index as uint16, 2 spare, count as uint32. */
const PLOT_SERIES_HEADER_BYTES = 8;

/**
 * Plot header: kind (byte 0), series count as uint16 (2–3), generation as uint32 (4–7); then per
 * series its index (uint16), 2 spare bytes, its sample count n (uint32), n float64 times, n float64 values.
 */
export function encodePlotSamplesFrame(generation: number, series: readonly PlotSamples[]): Uint8Array {
  let size = FRAME_HEADER_BYTES;
  for (const one of series) {
    if (one.timesMs.length !== one.values.length)
      throw new RangeError(`plot series ${one.index} has ${one.timesMs.length} times but ${one.values.length} values`);
    size += PLOT_SERIES_HEADER_BYTES + one.timesMs.length * 16;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint8(0, FrameKind.plotSamples);
  view.setUint16(2, series.length, true);
  view.setUint32(4, generation, true);
  let at = FRAME_HEADER_BYTES;
  for (const one of series) {
    const count = one.timesMs.length;
    view.setUint16(at, one.index, true);
    view.setUint32(at + 4, count, true);
    at += PLOT_SERIES_HEADER_BYTES;
    for (let i = 0; i < count; i++) view.setFloat64(at + i * 8, one.timesMs[i]!, true);
    at += count * 8;
    for (let i = 0; i < count; i++) view.setFloat64(at + i * 8, one.values[i]!, true);
    at += count * 8;
  }
  return out;
}

function decodePlotSamples(view: DataView, length: number): PlotSamplesFrame {
  const count = view.getUint16(2, true);
  const series: PlotSamples[] = [];
  let at = FRAME_HEADER_BYTES;
  for (let s = 0; s < count; s++) {
    if (at + PLOT_SERIES_HEADER_BYTES > length) throw new RangeError(`plot frame ends inside series ${s} of ${count}`);
    const index = view.getUint16(at, true);
    const samples = view.getUint32(at + 4, true);
    at += PLOT_SERIES_HEADER_BYTES;
    if (at + samples * 16 > length) throw new RangeError(`plot frame series ${index} claims ${samples} samples, more than the frame holds`);
    const timesMs = new Float64Array(samples);
    const values = new Float64Array(samples);
    for (let i = 0; i < samples; i++) timesMs[i] = view.getFloat64(at + i * 8, true);
    at += samples * 8;
    for (let i = 0; i < samples; i++) values[i] = view.getFloat64(at + i * 8, true);
    at += samples * 8;
    series.push({ index, timesMs, values });
  }
  if (at !== length) throw new RangeError(`plot frame should be ${at} bytes, is ${length}`);
  return { kind: 'plot', generation: view.getUint32(4, true), series };
}
