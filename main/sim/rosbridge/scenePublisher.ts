// The robot's model, frames and map over rosbridge, as a ROS robot's robot_state_publisher, base
// controller, localiser and map server publish them: /robot_description, /tf_static and /map
// latched (the last message goes to each new subscriber, however late; the map again with each new
// episode, whose solids may differ), and /tf with every odometry reading (robotFrames.ts). The
// latched messages are built once, so a subscriber costs the robot nothing but their sending.
import { episodeMap } from '../occupancyGrid.ts';
import { MAP_FRAME_ID, RobotFrames } from '../robotFrames.ts';
import { robotModel } from '../robotModel.ts';
import type { SensorOutput, SensorSink, SensorStream, SimRobot } from '../simRobot.ts';
import type { OutgoingMessage } from './outgoingMessage.ts';
import type { RosPersona } from './rosPersona.ts';
import type { RosMessage } from './rosMessages.ts';
import { rosOccupancyGrid, rosString, rosTfMessage } from './sceneMessages.ts';
import { topicOfSource, type SceneSource } from './topicCatalog.ts';
import { outgoingMessageOf, type Audience } from './topicPublisher.ts';

export class ScenePublisher implements SensorSink {
  private readonly frames: RobotFrames;
  private readonly latched = new Map<string, OutgoingMessage>();
  private readonly sequences = new Map<SceneSource, number>();
  private readonly tfTopic = topicOfSource('tf').name;
  private readonly stopWatchingEpisodes: () => void;

  constructor(
    private readonly robot: SimRobot,
    private readonly audience: Audience,
    /** Maps a simulated time to the robot's clock, in ms since the epoch. */
    private readonly wallMsAt: (simTimeSecs: number) => number,
    private readonly persona: RosPersona,
    /** The robot's clock now (ms since the epoch), which stamps a cbor-raw message's envelope. */
    private readonly robotNowMs: () => number,
  ) {
    this.frames = new RobotFrames(robot, robotModel({ points: robot.pointsOptions }));
    this.publish('robotDescription', rosString(this.frames.model.urdf));
    this.publish('tfStatic', rosTfMessage(this.frames.staticTransforms, this.wallMsAt(robot.simTimeSecs())));
    this.publishMap();
    this.stopWatchingEpisodes = robot.onEpisodeStart(() => this.publishMap());
  }

  /** /tf goes with the odometry, so the odometry is read when someone wants /tf. */
  wants(stream: SensorStream): boolean {
    return stream === 'odom' && this.audience.wants(this.tfTopic);
  }

  receive(output: SensorOutput): void {
    if (output.stream !== 'odom') return;
    this.publish('tf', rosTfMessage(this.frames.withOdometry(output.msg, output.simTimeSecs), this.wallMsAt(output.simTimeSecs)));
  }

  /** The last message of a latched topic, for a client subscribing to it now; undefined for any other topic. */
  latchedMessage(topic: string): OutgoingMessage | undefined {
    return this.latched.get(topic);
  }

  /** Stops following the robot's episodes (the server closes; the robot may live on). */
  dispose(): void {
    this.stopWatchingEpisodes();
  }

  private publishMap(): void {
    const seq = this.nextSeq('map');
    this.publish('map', rosOccupancyGrid(episodeMap(this.robot), seq, this.wallMsAt(this.robot.simTimeSecs()), MAP_FRAME_ID), seq);
  }

  private publish(source: SceneSource, msg: RosMessage, seq = this.nextSeq(source)): void {
    const topic = topicOfSource(source);
    const message = outgoingMessageOf(this.persona, this.robotNowMs(), { topic: topic.name, ros1Type: topic.type, msg, seq });
    if (topic.latched) this.latched.set(topic.name, message);
    this.audience.deliver(message);
  }

  private nextSeq(source: SceneSource): number {
    const seq = (this.sequences.get(source) ?? 0) + 1;
    this.sequences.set(source, seq);
    return seq;
  }
}
