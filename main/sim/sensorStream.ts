// The names of the simulated robot's sensor streams. Its own file so that the injections and the
// sensor faults, which name streams and which simRobot.ts imports, need not import simRobot.ts back.
export type SensorStream = 'camera' | 'scan' | 'points' | 'joints' | 'imu' | 'odom';
