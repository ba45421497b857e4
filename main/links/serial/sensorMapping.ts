// Turns a device's SENSOR samples into the cockpit's messages: wheels become a JointState and
// wheel odometry, the IMU block an Imu, analog channels AnalogInputs. Only what the sample holds is
// produced, so a device without an IMU yields no Imu at all.
import type { TopicInfo, TopicMap } from '../../core/link.ts';
import type { AnalogInputs, Imu, JointState, Odometry, RobotMessage } from '../../core/messages.ts';
import { hasCapability, type DeviceInfo, type Sensor, type WheelSample } from './protocolMessages.ts';

export interface MappedSample {
  joints?: JointState;
  odometry?: Odometry;
  imu?: Imu;
  analog?: AnalogInputs;
}

const TWO_PI = 2 * Math.PI;

export function wheelJointNames(count: number): string[] {
  return count === 2 ? ['left_wheel_joint', 'right_wheel_joint'] : Array.from({ length: count }, (_, i) => `wheel_${i}_joint`);
}

/** The topics a device's samples appear on, from what it said it has. */
export function sampleTopics(device: DeviceInfo, topicMap: TopicMap, analogTopic: string): TopicInfo[] {
  const topics: TopicInfo[] = [];
  if (hasCapability(device, 'wheels')) topics.push({ topic: topicMap.joints, kind: 'JointState' }, { topic: topicMap.odom, kind: 'Odometry' });
  if (hasCapability(device, 'imu')) topics.push({ topic: topicMap.imu, kind: 'Imu' });
  if (hasCapability(device, 'analog')) topics.push({ topic: analogTopic, kind: 'AnalogInputs' });
  return topics;
}

/** Each message of a mapped sample with the topic it goes out on. */
export function routeSample(sample: MappedSample, topicMap: TopicMap, analogTopic: string): Array<[string, RobotMessage]> {
  const routes: Array<[string, RobotMessage | undefined]> = [
    [topicMap.joints, sample.joints],
    [topicMap.odom, sample.odometry],
    [topicMap.imu, sample.imu],
    [analogTopic, sample.analog],
  ];
  return routes.filter((route): route is [string, RobotMessage] => route[1] !== undefined);
}

/** Maps samples from one device session; holds the odometry integrated so far. */
export class SensorMapper {
  private readonly jointNames: string[];
  private readonly radPerCount: number;
  private lastCounts: [number, number] | undefined;
  private poseXM = 0;
  private poseYM = 0;
  private poseYawRad = 0;

  constructor(private readonly device: DeviceInfo) {
    this.jointNames = wheelJointNames(device.wheelCount);
    this.radPerCount = device.encoderCountsPerRev > 0 ? TWO_PI / device.encoderCountsPerRev : 0;
  }

  /** The device's counters began again (a reset, a reconnect): keep the pose, drop the baseline. */
  restartCounts(): void {
    this.lastCounts = undefined;
  }

  map(sensor: Sensor): MappedSample {
    const mapped: MappedSample = {};
    if (sensor.wheels !== undefined && sensor.wheels.length > 0) {
      mapped.joints = this.joints(sensor.wheels);
      const odometry = this.odometry(sensor.wheels);
      if (odometry) mapped.odometry = odometry;
    }
    if (sensor.imu !== undefined) {
      const [x, y, z, w] = sensor.imu.orientation;
      const [gx, gy, gz] = sensor.imu.angularVelocityRadps;
      const [ax, ay, az] = sensor.imu.linearAccelerationMps2;
      mapped.imu = {
        kind: 'Imu',
        frameId: 'imu_link',
        orientation: { x, y, z, w },
        angularVelocityRadps: { x: gx, y: gy, z: gz },
        linearAccelerationMps2: { x: ax, y: ay, z: az },
      };
    }
    if (sensor.analogMillivolts !== undefined) {
      mapped.analog = {
        kind: 'AnalogInputs',
        names: sensor.analogMillivolts.map((_, i) => `a${i}`),
        voltagesV: Float64Array.from(sensor.analogMillivolts, (millivolts) => millivolts / 1000),
      };
    }
    return mapped;
  }

  private joints(wheels: WheelSample[]): JointState {
    return {
      kind: 'JointState',
      names: wheels.map((_, i) => this.jointNames[i] ?? `wheel_${i}_joint`),
      positionsRad: Float64Array.from(wheels, (wheel) => wheel.encoderCounts * this.radPerCount),
      velocitiesRadps: Float64Array.from(wheels, (wheel) => wheel.velocityRadps),
      // The device reports motor duty, not torque: effort is unknown, so the array is empty (as ROS allows).
      effortsNm: new Float64Array(0),
    };
  }

  /** Differential-drive dead reckoning from the encoder counts; needs two wheels and the geometry. */
  private odometry(wheels: WheelSample[]): Odometry | undefined {
    const { wheelRadiusM, trackM } = this.device;
    const [left, right] = wheels;
    if (wheels.length !== 2 || !left || !right || !(wheelRadiusM > 0) || !(trackM > 0) || this.radPerCount === 0) return undefined;
    const counts: [number, number] = [left.encoderCounts, right.encoderCounts];
    if (this.lastCounts) {
      // Counts are i32 on the wire; |0 keeps a wrapped difference small and right.
      const leftM = ((counts[0] - this.lastCounts[0]) | 0) * this.radPerCount * wheelRadiusM;
      const rightM = ((counts[1] - this.lastCounts[1]) | 0) * this.radPerCount * wheelRadiusM;
      const forwardM = (leftM + rightM) / 2;
      const turnRad = (rightM - leftM) / trackM;
      const midYawRad = this.poseYawRad + turnRad / 2;
      this.poseXM += forwardM * Math.cos(midYawRad);
      this.poseYM += forwardM * Math.sin(midYawRad);
      this.poseYawRad = Math.atan2(Math.sin(this.poseYawRad + turnRad), Math.cos(this.poseYawRad + turnRad));
    }
    this.lastCounts = counts;
    const leftMps = left.velocityRadps * wheelRadiusM;
    const rightMps = right.velocityRadps * wheelRadiusM;
    return {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base_link',
      odomFromBaseXM: this.poseXM,
      odomFromBaseYM: this.poseYM,
      odomFromBaseYawRad: this.poseYawRad,
      linearMps: (leftMps + rightMps) / 2,
      angularRadps: (rightMps - leftMps) / trackM,
    };
  }
}
