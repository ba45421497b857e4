// The simulated robot served over the foxglove protocol the way `reins sim --foxglove-port` serves
// it: the rosbridge server steps the robot and feeds the foxglove server as one of its sensor taps.
import { LateRobotClock, startSimFoxgloveServer, type SimFoxgloveServer } from '../../main/sim/foxglove/server.ts';
import type { SimCommandType } from '../../main/sim/rosbridge/commandInput.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import type { SimRobot } from '../../main/sim/simRobot.ts';

export interface FoxgloveSim {
  foxglove: SimFoxgloveServer;
  rosbridge: SimRosbridgeServer;
  close(): Promise<void>;
}

export async function startFoxgloveSim(
  robot: SimRobot,
  options: { commandType?: SimCommandType; legacy?: boolean; clockAheadMs?: number; port?: number; robotDescriptionTopic?: boolean } = {},
): Promise<FoxgloveSim> {
  const clock = new LateRobotClock(options.clockAheadMs ?? 0);
  const commandType = options.commandType ?? 'twist';
  const foxglove = await startSimFoxgloveServer({
    robot,
    port: options.port ?? 0,
    commandType,
    legacy: options.legacy ?? false,
    clock,
    robotDescriptionTopic: options.robotDescriptionTopic ?? true,
  });
  const rosbridge = await startSimRosbridgeServer({ robot, port: 0, commandType, clockAheadMs: options.clockAheadMs ?? 0, sensorTaps: [foxglove.sensors] });
  clock.attach(rosbridge.robotClock);
  return {
    foxglove,
    rosbridge,
    close: async () => {
      await foxglove.close();
      await rosbridge.close();
    },
  };
}
