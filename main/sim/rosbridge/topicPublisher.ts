// The robot's side of every topic: turns each sensor output into a ROS message with a header
// (per-topic `seq`, simulated time stamped on the wall clock) and hands it to the clients that
// subscribed. Streams nobody subscribes to are not rendered at all (the SensorSink contract).
import { MAP_FRAME_ID } from '../robotFrames.ts';
import { RateSchedule } from '../schedule.ts';
import type { SensorOutput, SensorSink, SensorStream, SimRobot } from '../simRobot.ts';
import { GROUND_TRUTH_RATE_HZ, rosGroundTruth } from './groundTruthMessage.ts';
import { OutgoingMessage } from './outgoingMessage.ts';
import { ROS1_PERSONA, type RosPersona } from './rosPersona.ts';
import { rosHeader, rosMessageOf, type RosMessage } from './rosMessages.ts';
import { CMD_VEL_TOPIC, topicOfSource } from './topicCatalog.ts';

/** The clients, as the robot sees them: who wants a topic, and a way to hand them a message. */
export interface Audience {
  wants(topic: string): boolean;
  deliver(message: OutgoingMessage): void;
}

/** A message built in its ROS 1 shape (with its topic's ROS 1 type and `seq`), as a robot of this ROS generation sends it. */
export function outgoingMessageOf(
  persona: RosPersona,
  robotNowMs: number,
  built: { topic: string; ros1Type: string; msg: RosMessage; seq: number },
): OutgoingMessage {
  const { topic, ros1Type, msg, seq } = built;
  const raw = persona.rosVersion === 2 ? { rosType: persona.typeName(ros1Type), receivedMs: robotNowMs } : undefined;
  return new OutgoingMessage(topic, persona.message(msg), `${topic}:${seq}`, raw);
}

export class TopicPublisher implements SensorSink {
  private readonly sequences = new Map<string, number>();
  private readonly groundTruthSchedule = new RateSchedule(GROUND_TRUTH_RATE_HZ);
  private readonly groundTruthTopic = topicOfSource('groundTruth').name;

  constructor(
    private readonly robot: SimRobot,
    private readonly audience: Audience,
    /** Maps a simulated time to the robot's clock (the wall clock, unless set ahead of it), in ms since the epoch. */
    private readonly wallMsAt: (simTimeSecs: number) => number,
    /** ROS 1 or ROS 2: the shape of the messages, and whether they can go as cbor-raw. */
    private readonly persona: RosPersona = ROS1_PERSONA,
    /** The robot's clock now (ms since the epoch), which stamps a cbor-raw message's envelope. */
    private readonly robotNowMs: () => number = Date.now,
  ) {}

  wants(stream: SensorStream): boolean {
    return this.audience.wants(topicOfSource(stream).name);
  }

  receive(output: SensorOutput): void {
    const topic = topicOfSource(output.stream).name;
    const seq = this.nextSeq(topic);
    const msg = rosMessageOf(output, {
      seq,
      stampMs: this.wallMsAt(output.simTimeSecs),
      scanPeriodSecs: 1 / this.robot.scanOptions.rateHz,
    });
    this.audience.deliver(this.outgoing(topic, topicOfSource(output.stream).type, msg, seq));
  }

  /** Publishes ground truth when it is due; call after every physics step. */
  afterStep(): void {
    const simTimeSecs = this.robot.simTimeSecs();
    if (!this.groundTruthSchedule.takeDue(simTimeSecs) || !this.audience.wants(this.groundTruthTopic)) return;
    const seq = this.nextSeq(this.groundTruthTopic);
    const msg = rosGroundTruth(this.robot.groundTruth(), rosHeader(seq, this.wallMsAt(simTimeSecs), MAP_FRAME_ID));
    this.audience.deliver(this.outgoing(this.groundTruthTopic, topicOfSource('groundTruth').type, msg, seq));
  }

  /** Passes a client's command on to the clients watching /cmd_vel, as a ROS topic would. */
  relayCommand(msg: RosMessage, ros1Type: string): void {
    if (!this.audience.wants(CMD_VEL_TOPIC.name)) return;
    const seq = this.nextSeq(CMD_VEL_TOPIC.name);
    this.audience.deliver(this.outgoing(CMD_VEL_TOPIC.name, ros1Type, msg, seq));
  }

  private outgoing(topic: string, ros1Type: string, msg: RosMessage, seq: number): OutgoingMessage {
    return outgoingMessageOf(this.persona, this.robotNowMs(), { topic, ros1Type, msg, seq });
  }

  private nextSeq(topic: string): number {
    const seq = (this.sequences.get(topic) ?? 0) + 1;
    this.sequences.set(topic, seq);
    return seq;
  }
}
