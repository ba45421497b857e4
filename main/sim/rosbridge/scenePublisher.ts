// The robot's model, frames and map over rosbridge, as a ROS robot's robot_state_publisher, base
// controller, localiser and map server publish them: /robot_description, /tf_static and /map
// latched (the last message goes to each new subscriber, however late; the map again with each new
// episode, whose solids may differ), and /tf with every odometry reading (robotFrames.ts). The
// latched messages are built once, so a subscriber costs the robot nothing but their sending. The
// planned route (/plan) and markers (/markers) go once a second of simulated time, with the odometry
// that follows it, while someone listens (navigationOverlay.ts).
import { episodeMap } from '../occupancyGrid.ts';
import { NAVIGATION_OVERLAY_RATE_HZ, NavigationOverlay } from '../navigationOverlay.ts';
import { BASE_FRAME_ID } from '../odometry.ts';
import { MAP_FRAME_ID, RobotFrames } from '../robotFrames.ts';
import { robotModel } from '../robotModel.ts';
import type { SensorOutput, SensorSink, SensorStream, SimRobot } from '../simRobot.ts';
import type { OutgoingMessage } from './outgoingMessage.ts';
import type { RosPersona } from './rosPersona.ts';
import type { RosMessage } from './rosMessages.ts';
import { RateSchedule } from '../schedule.ts';
import { rosMarkerArray, rosOccupancyGrid, rosPath, rosString, rosTfMessage } from './sceneMessages.ts';
import { topicOfSource, type SceneSource } from './topicCatalog.ts';
import { outgoingMessageOf, type Audience } from './topicPublisher.ts';

export class ScenePublisher implements SensorSink {
  private readonly frames: RobotFrames;
  private readonly latched = new Map<string, OutgoingMessage>();
  private readonly sequences = new Map<SceneSource, number>();
  private readonly tfTopic = topicOfSource('tf').name;
  private readonly overlayTopics = [topicOfSource('plan').name, topicOfSource('markers').name];
  private readonly overlay: NavigationOverlay;
  private readonly overlaySchedule = new RateSchedule(NAVIGATION_OVERLAY_RATE_HZ);
  /** Whether someone listened to /plan or /markers at the last odometry: a first listener is sent them at once. */
  private overlayHeard = false;
  private readonly stopWatchingEpisodes: () => void;

  constructor(
    private readonly robot: SimRobot,
    private readonly audience: Audience,
    /** Maps a simulated time to the robot's clock, in ms since the epoch. */
    private readonly wallMsAt: (simTimeSecs: number) => number,
    private readonly persona: RosPersona,
    /** The robot's clock now (ms since the epoch), which stamps a cbor-raw message's envelope. */
    private readonly robotNowMs: () => number,
    /** Whether /robot_description is published (off: the model only as robot_state_publisher's parameter). */
    robotDescriptionTopic = true,
  ) {
    this.frames = new RobotFrames(robot, robotModel({ points: robot.pointsOptions }));
    this.overlay = new NavigationOverlay(robot.arena, MAP_FRAME_ID, BASE_FRAME_ID);
    if (robotDescriptionTopic) this.publish('robotDescription', rosString(this.frames.model.urdf));
    this.publish('tfStatic', rosTfMessage(this.frames.staticTransforms, this.wallMsAt(robot.simTimeSecs())));
    this.publishMap();
    this.stopWatchingEpisodes = robot.onEpisodeStart(() => this.publishMap());
  }

  /** /tf, /plan and /markers go with the odometry, so the odometry is read when someone wants one of them. */
  wants(stream: SensorStream): boolean {
    return stream === 'odom' && [this.tfTopic, ...this.overlayTopics].some((topic) => this.audience.wants(topic));
  }

  receive(output: SensorOutput): void {
    if (output.stream !== 'odom') return;
    const stampMs = this.wallMsAt(output.simTimeSecs);
    if (this.audience.wants(this.tfTopic)) this.publish('tf', rosTfMessage(this.frames.withOdometry(output.msg, output.simTimeSecs), stampMs));
    const due = this.overlaySchedule.takeDue(output.simTimeSecs);
    const [planTopic, markersTopic] = this.overlayTopics;
    const heard = this.audience.wants(planTopic!) || this.audience.wants(markersTopic!);
    const firstHeard = heard && !this.overlayHeard;
    this.overlayHeard = heard;
    if (!heard || (!due && !firstHeard)) return;
    const truth = this.robot.groundTruth();
    if (this.audience.wants(planTopic!)) {
      const seq = this.nextSeq('plan');
      this.publish('plan', rosPath(this.overlay.route(truth), seq, stampMs, MAP_FRAME_ID), seq);
    }
    if (this.audience.wants(markersTopic!)) this.publish('markers', rosMarkerArray(this.overlay.markers(truth), stampMs));
  }

  /** The robot's URDF, as robot_state_publisher holds it in its robot_description parameter. */
  robotDescription(): string {
    return this.frames.model.urdf;
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
