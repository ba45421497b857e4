// The services a client can call: the rosapi ones roslib uses for discovery and time, and the
// simulator's own (/sim/reset, /sim/inject, /sim/identify). Each checks its args and answers values,
// or says why not (sent as a service_response with result false, like rosbridge_server).
import { z } from 'zod';
import type { SimInjection } from '../injection.ts';
import { parseInjection } from './injectionSchema.ts';
import { describeIssues } from './protocol.ts';
import { ROS1_PERSONA, type RosPersona } from './rosPersona.ts';
import { rosTimeFromMs } from './rosMessages.ts';
import { ALL_TOPICS, resolveRosName, sameRosType, type KnownTopic } from './topicCatalog.ts';

export type ServiceResult = { ok: true; values: Record<string, unknown> } | { ok: false; error: string };

export interface RosService {
  name: string;
  type: string;
  call(args: unknown): ServiceResult;
}

/** What the services act on: the running simulation, as the server sees it. */
export interface SimControl {
  /** Simulated now, on the robot's clock (the clock of every header stamp: the wall clock unless set ahead). */
  clockMs(): number;
  /** Starts a new episode; without a seed, the next one in sequence. Returns the seed used. */
  resetEpisode(seed: number | undefined): number;
  inject(injection: SimInjection): void;
  /** The token `reins sim --identity` was started with; '' when none was given. */
  identity: string;
  robotName: string;
  /** The topics rosapi lists (default: every topic the simulated robot can have); a robot with its point cloud off has no /points. */
  topics?: readonly KnownTopic[];
  /** ROS 1 (default) or ROS 2: how rosapi names types, writes times and definitions. */
  persona?: RosPersona;
  /** False: rosapi is not running (rosbridge_server alone), so none of its services answer. Default true. */
  rosapi?: boolean;
  /** Node parameters rosapi's get_param reads, by node and name (robot_state_publisher's robot_description). */
  nodeParameters?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** What /rosapi/get_ros_version answers, per ROS generation (rosbridge_suite's rosapi serves it on both). */
const ROS_DISTROS = { 1: 'noetic', 2: 'jazzy' } as const;

const NoArgs = z.strictObject({});
const TopicArgs = z.strictObject({ topic: z.string() });
const TypeArgs = z.strictObject({ type: z.string() });
const ServiceArgs = z.strictObject({ service: z.string() });
const GetParamArgs = z.strictObject({ name: z.string(), default_value: z.string().optional() });
const ResetArgs = z.strictObject({ seed: z.number().int().min(0).max(0xffff_ffff).optional() });

export function createServices(sim: SimControl): ReadonlyMap<string, RosService> {
  const persona = sim.persona ?? ROS1_PERSONA;
  const topics = (sim.topics ?? ALL_TOPICS).map((topic) => ({ ...topic, type: persona.typeName(topic.type) }));
  const services: RosService[] = [
    service('/rosapi/topics', 'rosapi/Topics', NoArgs, () => ({
      topics: topics.map((topic) => topic.name),
      types: topics.map((topic) => topic.type),
    })),
    service('/rosapi/topic_type', 'rosapi/TopicType', TopicArgs, ({ topic }) => ({
      // rosapi answers '' for a topic it does not know, and clients rely on that.
      type: topics.find((known) => known.name === resolveRosName(topic))?.type ?? '',
    })),
    service('/rosapi/topics_for_type', 'rosapi/TopicsForType', TypeArgs, ({ type }) => ({
      topics: topics.filter((topic) => sameRosType(type, topic.type)).map((topic) => topic.name),
    })),
    service('/rosapi/topics_and_raw_types', 'rosapi/TopicsAndRawTypes', NoArgs, () => ({
      topics: topics.map((topic) => topic.name),
      types: topics.map((topic) => topic.type),
      typedefs_full_text: topics.map((topic) => persona.definition(topic.type)),
    })),
    service('/rosapi/get_ros_version', 'rosapi/GetROSVersion', NoArgs, () => ({ version: persona.rosVersion, distro: ROS_DISTROS[persona.rosVersion] })),
    service('/rosapi/services', 'rosapi/Services', NoArgs, () => ({ services: services.map((each) => each.name) })),
    service('/rosapi/service_type', 'rosapi/ServiceType', ServiceArgs, ({ service: name }) => ({
      type: services.find((each) => each.name === resolveRosName(name))?.type ?? '',
    })),
    service('/rosapi/get_time', 'rosapi/GetTime', NoArgs, () => ({ time: persona.time(rosTimeFromMs(sim.clockMs())) })),
    service('/rosapi/get_param', 'rosapi/GetParam', GetParamArgs, ({ name, default_value: fallback }) => ({
      value: JSON.stringify(nodeParameter(sim, persona, name) ?? defaultParamValue(fallback ?? '')),
    })),
    service('/sim/reset', 'reins_sim/Reset', ResetArgs, ({ seed }) => ({ episode_seed: sim.resetEpisode(seed) })),
    {
      name: '/sim/inject',
      type: 'reins_sim/Inject',
      call: (args) => {
        const parsed = parseInjection(args);
        if (!parsed.ok) return { ok: false, error: parsed.message };
        sim.inject(parsed.injection);
        return { ok: true, values: { injected: parsed.injection.kind } };
      },
    },
    service('/sim/identify', 'reins_sim/Identify', NoArgs, () => ({ identity: sim.identity, robot_name: sim.robotName })),
  ];
  const served = sim.rosapi === false ? services.filter((each) => !each.name.startsWith('/rosapi/')) : services;
  return new Map(served.map((each) => [each.name, each]));
}

/**
 * A parameter as rosapi names it: on ROS 2 `NODE:PARAM` (rosapi's own naming, rosapi/params.py), the
 * node's parameter; on ROS 1 a path on the parameter server, where robot_state_publisher's
 * robot_description sits at the root (`/robot_description`) and a node's own under its name.
 */
function nodeParameter(sim: SimControl, persona: RosPersona, name: string): unknown {
  const parameters = sim.nodeParameters ?? {};
  if (persona.rosVersion === 2) {
    const split = name.lastIndexOf(':');
    if (split <= 0) return undefined;
    const node = name.slice(0, split).replace(/^(?!\/)/, '/');
    return parameters[node]?.[name.slice(split + 1)];
  }
  for (const [node, values] of Object.entries(parameters))
    for (const [parameter, value] of Object.entries(values)) if (name === `/${parameter}` || name === `${node}/${parameter}`) return value;
  return undefined;
}

/** rosapi answers a parameter it cannot read with the default asked for, itself JSON where it parses. */
function defaultParamValue(fallback: string): unknown {
  if (fallback === '') return '';
  try {
    return JSON.parse(fallback);
  } catch {
    return fallback;
  }
}

function service<Args>(name: string, type: string, schema: z.ZodType<Args>, answer: (args: Args) => Record<string, unknown>): RosService {
  return {
    name,
    type,
    call: (args) => {
      const parsed = schema.safeParse(args ?? {});
      if (!parsed.success) return { ok: false, error: `${name}: bad args: ${describeIssues(parsed.error)}` };
      return { ok: true, values: answer(parsed.data) };
    },
  };
}
