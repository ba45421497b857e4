// The command line's arguments, parsed and checked: `reins start`/`review`, `probe`, `bench`, and
// `--robot` (the built-in simulated robot, a rosbridge server, or a serial port). A mistake is a UsageError.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROS_TOPIC_PATTERN } from '../core/contract.ts';
import { COMMAND_STAMP_SOURCES, DEFAULT_COMMAND_STAMP, type CommandStampOptions, type CommandStampSource } from '../links/rosbridge/commandMessage.ts';
import { CaFileError, readCaFile } from '../links/caFile.ts';
import { parseRobotAddress, RobotAddressError, type RobotSpec } from '../links/robotAddress.ts';
import type { XacroInputs } from '../api/xacroExpansion.ts';
import type { StartArgs } from '../session/startArgs.ts';
import { DEFAULT_WORLD_MODEL_ARGS, type WorldModelArgs } from '../session/worldModelOptions.ts';
import { PRESET_NAMES, type PresetName } from '../worldmodel/worldModelConfig.ts';
import { parseCamera, parsePoints } from './sim.ts';
import { parseTopicMapArg } from './topicMapArg.ts';
import { UsageError } from './usageError.ts';

export type { RobotSpec };

export function parseRobotSpec(text: string | undefined): RobotSpec {
  try {
    return parseRobotAddress(text);
  } catch (error) {
    if (error instanceof RobotAddressError) throw new UsageError(`--robot ${error.message}`);
    throw error;
  }
}

export function parseStartArgs(args: string[]): StartArgs {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      robot: { type: 'string' },
      headless: { type: 'boolean', default: false },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      token: { type: 'string' },
      'rate-hz': { type: 'string', default: '10' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      insecure: { type: 'boolean', default: false },
      'sim-camera': { type: 'string' },
      'sim-prerendered-camera': { type: 'boolean', default: false },
      'sim-points': { type: 'string' },
      encoders: { type: 'string' },
      'encoder-threads': { type: 'string' },
      recordings: { type: 'string' },
      'no-record': { type: 'boolean', default: false },
      memory: { type: 'string' },
      'no-memory': { type: 'boolean', default: false },
      'world-model': { type: 'string' },
      'no-world-model': { type: 'boolean', default: false },
      'replay-ratio': { type: 'string' },
      review: { type: 'string' },
      rescore: { type: 'boolean', default: false },
      'topic-map': { type: 'string' },
      'points-topic': { type: 'string' },
      urdf: { type: 'string' },
      'xacro-arg': { type: 'string', multiple: true },
      'ros-package': { type: 'string', multiple: true },
      'watchdog-ms': { type: 'string', default: String(DEFAULT_WATCHDOG_MS) },
      'memory-budget-mib': { type: 'string' },
      'command-stamp': { type: 'string', default: DEFAULT_COMMAND_STAMP.stamp },
      'command-frame-id': { type: 'string', default: DEFAULT_COMMAND_STAMP.frameId },
      ca: { type: 'string' },
    },
  });
  if (values.review !== undefined && values.robot !== undefined) throw new UsageError('review mode plays a log instead of a robot: --robot does not apply');
  if (values.review === '') throw new UsageError('review needs the path of an MCAP log');
  if (values.rescore && values.review === undefined) throw new UsageError('--rescore re-scores a log in review mode: reins review FILE --rescore');
  if (values['topic-map'] !== undefined && values.review === undefined)
    throw new UsageError(
      "--topic-map chooses a log's topics in review mode (reins review FILE --topic-map JSON|FILE); a robot's are chosen in the Connect-robot dialog",
    );
  if (values.rescore && values['no-memory']) throw new UsageError('--rescore writes re-scored rows to memory: it cannot go with --no-memory');
  if (values.recordings !== undefined && values['no-record']) throw new UsageError('--recordings and --no-record contradict each other');
  if (values.memory !== undefined && values['no-memory']) throw new UsageError('--memory and --no-memory contradict each other');
  if (values.recordings === '' || values.memory === '') throw new UsageError('--recordings and --memory need a location');
  if (values.urdf === '') throw new UsageError('--urdf needs the path of a URDF file');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got "${values.port}"`);
  const rateHz = Number(values['rate-hz']);
  if (!(rateHz > 0 && rateHz <= 30)) throw new UsageError(`--rate-hz must be above 0 and at most 30, got "${values['rate-hz']}"`);
  if (values.token !== undefined && !/^[A-Za-z0-9._~-]{16,256}$/.test(values.token)) {
    throw new UsageError('--token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -');
  }
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  const worldModel = worldModelArgs(values['world-model'], values['no-world-model'] ?? false, values['replay-ratio']);
  return {
    robot: values.robot,
    headless: values.headless ?? false,
    host: values.host ?? '127.0.0.1',
    port,
    token: values.token,
    rateHz,
    tlsCert: values['tls-cert'],
    tlsKey: values['tls-key'],
    insecure: values.insecure ?? false,
    simArgs: simArgsFor(values.robot, values['sim-camera'], values['sim-prerendered-camera'] ?? false, values['sim-points']),
    ...encoderArgs(values.encoders, values['encoder-threads']),
    stores: {
      recordings: values.recordings === undefined ? undefined : resolve(values.recordings),
      record: !values['no-record'],
      memory: values.memory,
      remember: !values['no-memory'],
    },
    worldModel,
    review: values.review === undefined ? undefined : resolve(values.review),
    rescore: values.rescore ?? false,
    ...(values['topic-map'] === undefined ? {} : { reviewTopics: parseTopicMapArg(values['topic-map']) }),
    pointsTopic: pointsTopic(values['points-topic']),
    // Absolute, so it means the same to the desktop shell's core process whatever its working folder.
    urdf: values.urdf === undefined ? undefined : resolve(values.urdf),
    xacro: xacroInputs(values['xacro-arg'] ?? [], values['ros-package'] ?? []),
    watchdogMs: watchdogMs(values['watchdog-ms']),
    memoryBudgetMib: memoryBudgetMib(values['memory-budget-mib']),
    command: commandStamp(values['command-stamp'], values['command-frame-id']),
    ca: caOption(values.ca),
  };
}

/** `--ca FILE`: read now, so a missing or bad file is refused before anything starts; the path is kept for the desktop shell's core. */
export function caOption(path: string | undefined): { path: string; pem: string } | undefined {
  if (path === undefined) return undefined;
  try {
    return { path: resolve(path), pem: readCaFile(path) };
  } catch (error) {
    if (error instanceof CaFileError) throw new UsageError(error.message);
    throw error;
  }
}

/** `--ca` only means something for a robot reached over a WebSocket (wss://). */
export function checkCaApplies(robot: RobotSpec, ca: unknown): void {
  if (ca !== undefined && robot.kind !== 'websocket' && robot.kind !== 'foxglove')
    throw new UsageError('--ca applies to a robot reached over wss:// (a rosbridge or foxglove_bridge with TLS), not to this one');
}

/** `--xacro-arg NAME:=VALUE` (as `xacro` takes them) and `--ros-package NAME=DIR` (absolute), each repeatable. */
function xacroInputs(args: readonly string[], packages: readonly string[]): XacroInputs {
  const parsed: XacroInputs = { args: {}, packages: {} };
  for (const text of args) {
    const match = /^([A-Za-z_][\w-]*):=(.*)$/.exec(text);
    if (!match) throw new UsageError(`--xacro-arg takes NAME:=VALUE, got "${text}"`);
    (parsed.args as Record<string, string>)[match[1]!] = match[2]!;
  }
  for (const text of packages) {
    const match = /^([A-Za-z][\w-]*)=(.+)$/.exec(text);
    if (!match) throw new UsageError(`--ros-package takes NAME=DIR (the package's folder), got "${text}"`);
    (parsed.packages as Record<string, string>)[match[1]!] = resolve(match[2]!);
  }
  return parsed;
}

/** DESIGN §2: a lapse of 300 ms stops the robot. A slow remote cockpit may need longer; never over 3 s. */
const DEFAULT_WATCHDOG_MS = 300;
const MAX_WATCHDOG_MS = 3000;

function watchdogMs(text: string | undefined): number {
  const ms = Number(text ?? DEFAULT_WATCHDOG_MS);
  if (!(Number.isInteger(ms) && ms >= 100 && ms <= MAX_WATCHDOG_MS))
    throw new UsageError(`--watchdog-ms must be a whole number from 100 to ${MAX_WATCHDOG_MS}, got "${text}"`);
  return ms;
}

/** The core's resident memory budget: below 256 MiB the encoders and learners alone would sit over it. */
const MIN_MEMORY_BUDGET_MIB = 256;
const MAX_MEMORY_BUDGET_MIB = 1024 * 1024;

function memoryBudgetMib(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const mib = Number(text);
  if (!(/^\d+$/.test(text) && mib >= MIN_MEMORY_BUDGET_MIB && mib <= MAX_MEMORY_BUDGET_MIB))
    throw new UsageError(`--memory-budget-mib must be a whole number of MiB from ${MIN_MEMORY_BUDGET_MIB} to ${MAX_MEMORY_BUDGET_MIB}, got "${text}"`);
  return mib;
}

/** A TwistStamped command's stamp (zero or the robot's clock, never the cockpit's) and frame. */
function commandStamp(stamp: string | undefined, frameId: string | undefined): CommandStampOptions {
  const source = stamp ?? DEFAULT_COMMAND_STAMP.stamp;
  if (!(COMMAND_STAMP_SOURCES as readonly string[]).includes(source))
    throw new UsageError(`--command-stamp must be one of ${COMMAND_STAMP_SOURCES.join(', ')} (the cockpit's clock is never used), got "${stamp}"`);
  const frame = frameId ?? DEFAULT_COMMAND_STAMP.frameId;
  if (!/^[A-Za-z0-9_/.-]{1,256}$/.test(frame)) throw new UsageError(`--command-frame-id must be a ROS frame name such as base_link, got "${frameId}"`);
  return { stamp: source as CommandStampSource, frameId: frame };
}

function pointsTopic(topic: string | undefined): string | undefined {
  if (topic !== undefined && !ROS_TOPIC_PATTERN.test(topic))
    throw new UsageError(`--points-topic must be a ROS topic name such as /velodyne_points, got "${topic}"`);
  return topic;
}

function worldModelArgs(preset: string | undefined, off: boolean, replayRatio: string | undefined): WorldModelArgs {
  if (preset !== undefined && off) throw new UsageError('--world-model and --no-world-model contradict each other');
  if (preset !== undefined && !(PRESET_NAMES as readonly string[]).includes(preset))
    throw new UsageError(`--world-model must be one of ${PRESET_NAMES.join(', ')}, got "${preset}"`);
  const ratio = replayRatio === undefined ? DEFAULT_WORLD_MODEL_ARGS.replayRatio : Number(replayRatio);
  if (!(Number.isFinite(ratio) && ratio > 0 && ratio <= 10_000))
    throw new UsageError(`--replay-ratio must be a number above 0 and at most 10000, got "${replayRatio}"`);
  return { preset: off ? undefined : ((preset as PresetName | undefined) ?? DEFAULT_WORLD_MODEL_ARGS.preset), replayRatio: ratio };
}

function encoderArgs(encoders: string | undefined, threads: string | undefined): { encoders: string | undefined; encoderThreads: number | undefined } {
  const encoderThreads = threads === undefined ? undefined : Number(threads);
  if (encoderThreads !== undefined && !(Number.isInteger(encoderThreads) && encoderThreads >= 1 && encoderThreads <= 64)) {
    throw new UsageError(`--encoder-threads must be a whole number from 1 to 64, got "${threads}"`);
  }
  if (encoders === '') throw new UsageError('--encoders needs the path of an encoder manifest');
  // Absolute, so it means the same to the desktop shell's core process whatever its working folder.
  return { encoders: encoders === undefined ? undefined : resolve(encoders), encoderThreads };
}

function simArgsFor(robot: string | undefined, camera: string | undefined, prerenderedCamera: boolean, points: string | undefined): string[] {
  const args: string[] = [];
  if (camera !== undefined) {
    parseCamera(camera); // a usage error here, before the sim process starts
    args.push('--camera', camera);
  }
  if (prerenderedCamera) args.push('--prerendered-camera');
  if (points !== undefined) {
    parsePoints(points);
    args.push('--points', points);
  }
  if (args.length > 0 && robot !== undefined && robot !== 'sim')
    throw new UsageError('--sim-camera, --sim-prerendered-camera and --sim-points apply only to --robot sim');
  return args;
}

export interface ProbeArgs {
  robot: string;
  seconds: number;
  json: boolean;
  /** `--ca FILE`: the PEM certificate authorities for a wss:// robot. */
  ca?: { path: string; pem: string };
}

export function parseProbeArgs(args: string[]): ProbeArgs {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { seconds: { type: 'string', default: '5' }, json: { type: 'boolean', default: false }, ca: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('reins probe takes exactly one ROBOT');
  const ca = caOption(values.ca);
  checkCaApplies(parseRobotSpec(positionals[0]), ca);
  const seconds = Number(values.seconds);
  if (!(seconds > 0 && seconds <= 600)) throw new UsageError(`--seconds must be above 0 and at most 600, got "${values.seconds}"`);
  return { robot: positionals[0]!, seconds, json: values.json ?? false, ...(ca === undefined ? {} : { ca }) };
}

export interface BenchArgs {
  suite: string;
  jsonPath: string | undefined;
  /** For the suites that run the encoders (tick, perception). */
  encoders: string | undefined;
  encoderThreads: number | undefined;
  /** `reins bench learning`'s selection; each field undefined for the default matrix's. */
  learning: LearningSelection;
  /** `reins bench memory`: `--rows N` (the table's size; undefined: 1M) and `--under-load also|only|off` (undefined: also). */
  memory: { rows: number | undefined; underLoad: (typeof UNDER_LOAD_MODES)[number] | undefined };
  /** `reins bench worldmodel`: `--save FILE` keeps the model it trained; `--from FILE` evaluates a kept one instead of training. */
  worldModel: { saveModelTo?: string; modelFrom?: string };
}

export const UNDER_LOAD_MODES = ['also', 'only', 'off'] as const;

export interface LearningSelection {
  methods: string[] | undefined;
  tasks: string[] | undefined;
  operators: string[] | undefined;
  seeds: number[] | undefined;
  budgets: number[] | undefined;
  /** Jobs run at once, each in a process of its own. */
  jobs: number | undefined;
  /** `reins start` arguments for every core of the run (e.g. `--no-world-model`). */
  startArgs: string[];
  /** `--learner JSON`: the policy learner's settings for Reins' streams (checked by the bench, which knows them). */
  learner: Record<string, unknown> | undefined;
  /** `--sequence reach,dock`: the tasks each stream teaches in turn. */
  sequence: string[] | undefined;
  /** `--eval-episodes N`: each evaluation's episodes, over the held-out arenas (checked by the bench, which knows them). */
  evalEpisodes: number | undefined;
  /** `reins bench critic`: a stream's ticks and feedback saved to / read from this file. */
  saveTo: string | undefined;
  readFrom: string | undefined;
}

const LEARNING_OPTIONS = ['methods', 'task', 'operator', 'seeds', 'budgets', 'jobs', 'no-world-model', 'learner', 'sequence', 'eval-episodes'] as const;
/** Suites that take the learning bench's selection. */
const LEARNING_SUITES = ['learning', 'critic'];

export function parseBenchArgs(args: string[]): BenchArgs {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      json: { type: 'string' },
      encoders: { type: 'string' },
      'encoder-threads': { type: 'string' },
      methods: { type: 'string' },
      task: { type: 'string' },
      operator: { type: 'string' },
      seeds: { type: 'string' },
      budgets: { type: 'string' },
      jobs: { type: 'string' },
      'no-world-model': { type: 'boolean', default: false },
      learner: { type: 'string' },
      sequence: { type: 'string' },
      'eval-episodes': { type: 'string' },
      save: { type: 'string' },
      from: { type: 'string' },
      rows: { type: 'string' },
      'under-load': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('reins bench takes exactly one SUITE');
  const suite = positionals[0]!;
  if (!LEARNING_SUITES.includes(suite)) {
    const given = LEARNING_OPTIONS.filter((name) => values[name] !== undefined && values[name] !== false);
    if (given.length > 0) throw new UsageError(`${given.map((name) => `--${name}`).join(', ')} apply only to reins bench learning and critic`);
  }
  if (suite !== 'critic' && suite !== 'worldmodel' && (values.save !== undefined || values.from !== undefined))
    throw new UsageError('--save and --from apply only to reins bench critic and worldmodel');
  if (suite === 'worldmodel' && values.save !== undefined && values.from !== undefined)
    throw new UsageError('reins bench worldmodel takes --save FILE (train, and keep the model) or --from FILE (evaluate a kept model), not both');
  if (suite !== 'memory' && (values.rows !== undefined || values['under-load'] !== undefined))
    throw new UsageError('--rows and --under-load apply only to reins bench memory');
  const underLoad = values['under-load'];
  if (underLoad !== undefined && !(UNDER_LOAD_MODES as readonly string[]).includes(underLoad))
    throw new UsageError(`--under-load must be one of ${UNDER_LOAD_MODES.join(', ')}, got "${underLoad}"`);
  return {
    suite,
    jsonPath: values.json,
    ...encoderArgs(values.encoders, values['encoder-threads']),
    learning: {
      methods: names('--methods', values.methods),
      tasks: names('--task', values.task),
      operators: names('--operator', values.operator),
      seeds: wholeNumbers('--seeds', values.seeds),
      budgets: positiveNumbers('--budgets', values.budgets),
      jobs: oneWholeNumber('--jobs', values.jobs),
      startArgs: values['no-world-model'] ? ['--no-world-model'] : [],
      learner: jsonObject('--learner', values.learner),
      sequence: names('--sequence', values.sequence),
      evalEpisodes: oneWholeNumber('--eval-episodes', values['eval-episodes']),
      saveTo: values.save,
      readFrom: values.from,
    },
    memory: { rows: oneWholeNumber('--rows', values.rows), underLoad: underLoad as BenchArgs['memory']['underLoad'] },
    worldModel:
      suite === 'worldmodel'
        ? {
            ...(values.save === undefined ? {} : { saveModelTo: resolve(values.save) }),
            ...(values.from === undefined ? {} : { modelFrom: resolve(values.from) }),
          }
        : {},
  };
}

/** A JSON object given on the command line; its fields are checked by whoever reads them. */
function jsonObject(option: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} takes a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${option} takes a JSON object, got ${text}`);
  return value as Record<string, unknown>;
}

/** A comma-separated list of names; the names themselves are checked by the bench, which knows them. */
function names(option: string, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const list = text.split(',').map((item) => item.trim());
  if (list.some((item) => item === '')) throw new UsageError(`${option} takes a comma-separated list, got "${text}"`);
  return list;
}

function wholeNumbers(option: string, text: string | undefined): number[] | undefined {
  const list = names(option, text);
  if (list === undefined) return undefined;
  const bad = list.filter((item) => !/^\d+$/.test(item) || Number(item) < 1);
  if (bad.length > 0) throw new UsageError(`${option} takes whole numbers ≥ 1, got ${bad.map((item) => `"${item}"`).join(', ')}`);
  return list.map(Number);
}

function oneWholeNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${option} takes a whole number ≥ 1, got "${text}"`);
  return Number(text);
}

function positiveNumbers(option: string, text: string | undefined): number[] | undefined {
  const list = names(option, text);
  if (list === undefined) return undefined;
  const bad = list.filter((item) => !/^\d+(\.\d+)?$/.test(item) || !(Number(item) > 0));
  if (bad.length > 0) throw new UsageError(`${option} takes simulated minutes > 0, got ${bad.map((item) => `"${item}"`).join(', ')}`);
  const numbers = list.map(Number);
  if (numbers.some((value, i) => i > 0 && value <= numbers[i - 1]!)) throw new UsageError(`${option} must rise, got "${text}"`);
  return numbers;
}
