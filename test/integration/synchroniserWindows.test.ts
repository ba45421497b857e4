// The synchroniser on the lockstep simulated robot: each frame hands perception the IMU's and the
// wheels' messages since the previous frame, so a shove between two ticks is in the frame whichever sample
// the tick reads last.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../main/core/link.ts';
import { twistFromDrive, type Imu } from '../../main/core/messages.ts';
import { proprioValue } from '../../main/perception/preprocess.ts';
import { createSimLink, type LockstepLink } from '../../main/sim/lockstepLink.ts';
import { MAX_MESSAGES_PER_TICK, Synchroniser } from '../../main/loop/synchroniser.ts';

let link: LockstepLink | undefined;
let synchroniser: Synchroniser | undefined;
afterEach(async () => {
  synchroniser?.close();
  await link?.close();
});

function start(): { link: LockstepLink; synchroniser: Synchroniser } {
  link = createSimLink({ arenaSeed: 3, episodeSeed: 3, epochMs: 0 });
  synchroniser = new Synchroniser(link, DEFAULT_TOPIC_MAP);
  return { link, synchroniser };
}

const horizontal = (imu: Imu) => Math.hypot(imu.linearAccelerationMps2.x, imu.linearAccelerationMps2.y);

describe('Synchroniser', () => {
  it("hands each frame the IMU's and the wheels' messages since the previous frame, the newest last", () => {
    const { link, synchroniser } = start();
    link.advance(0.1);
    synchroniser.frame(link.clockMs());
    link.advance(0.1);
    const frame = synchroniser.frame(link.clockMs());
    // 100 Hz IMU, 50 Hz wheels over a 100 ms tick.
    expect(frame.imu?.sinceLastTick).toHaveLength(10);
    expect(frame.joints?.sinceLastTick).toHaveLength(5);
    expect(frame.imu?.sinceLastTick?.at(-1)).toBe(frame.imu?.received.msg);
    // The camera, the scan and odometry are read at their newest only.
    expect(frame.camera?.sinceLastTick).toBeUndefined();
    expect(frame.scan?.sinceLastTick).toBeUndefined();
    expect(frame.odom?.sinceLastTick).toBeUndefined();
    // A second frame at once: nothing came since, though the newest message is still fresh.
    const again = synchroniser.frame(link.clockMs());
    expect(again.imu?.sinceLastTick).toEqual([]);
    expect(again.imu?.received.msg).toBe(frame.imu?.received.msg);
  });

  it('keeps a shove that struck between two ticks in the frame, where the latest reading alone has lost it', () => {
    const { link, synchroniser } = start();
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0.2, angularRadps: 0 }));
    link.advance(0.1);
    synchroniser.frame(link.clockMs());
    link.advance(0.03);
    link.inject({ kind: 'shove', forwardMps: 0, leftwardMps: 1 });
    link.advance(0.07);
    const frame = synchroniser.frame(link.clockMs());
    const readings = frame.imu!.sinceLastTick!;
    const peak = Math.max(...readings.map(horizontal));
    expect(peak).toBeGreaterThan(5 * horizontal(frame.imu!.received.msg));
    const sources = { joints: frame.joints!.received.msg, imu: frame.imu!.received.msg, command: { linearMps: 0.2, angularRadps: 0 } };
    const summarised = { ...sources, imuSinceLastTick: readings, jointsSinceLastTick: frame.joints!.sinceLastTick! };
    // The peak is the reading of largest magnitude with its sign; the mean is over the tick; the last is the latest.
    const lateral = readings.map((imu) => imu.linearAccelerationMps2.y);
    const largest = lateral.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a));
    expect(proprioValue('accel-y-peak-mps2', summarised)).toBe(largest);
    expect(proprioValue('accel-y-mean-mps2', summarised)).toBeCloseTo(lateral.reduce((a, b) => a + b, 0) / lateral.length, 12);
    expect(proprioValue('accel-y-mps2', summarised)).toBe(lateral.at(-1));
    expect(Math.abs(proprioValue('accel-y-peak-mps2', summarised))).toBeGreaterThan(Math.abs(proprioValue('accel-y-peak-mps2', sources)));
  });

  it('keeps at most MAX_MESSAGES_PER_TICK of a stream when the loop stalls, the newest ones', () => {
    const { link, synchroniser } = start();
    link.advance(3);
    const frame = synchroniser.frame(link.clockMs());
    const readings = frame.imu!.sinceLastTick!;
    expect(readings).toHaveLength(MAX_MESSAGES_PER_TICK);
    expect(readings.at(-1)).toBe(frame.imu!.received.msg);
  });
});
