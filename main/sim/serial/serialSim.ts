// The simulated robot as a serial device on a pseudo-terminal (`reins sim --serial-pty PATH`): the
// cockpit opens serial:PATH and meets a device that speaks PROTOCOL.md, with the simulated robot's
// wheels and IMU behind it. If socat dies, the pty pair is made again at the same path, as a board
// that was unplugged and plugged back in.
import { SerialPort } from 'serialport';
import type { Imu } from '../../core/messages.ts';
import { RealtimeStepper } from '../rosbridge/realtimeStepper.ts';
import { SimRobot, type SensorSink } from '../simRobot.ts';
import { SimSerialDevice } from './simSerialDevice.ts';
import { openPtyPair, type PtyPair } from './socatPty.ts';

export interface SerialSimOptions {
  /** Where the cockpit opens the device (a symlink socat creates; replaced if it exists). */
  ptyPath: string;
  /**
   * Expose this robot (e.g. the one `reins sim` serves over rosbridge) instead of making one. The
   * caller then steps it in real time and feeds the returned `sensors` the outputs of those steps
   * (startSimRosbridgeServer's `sensorTaps`); without one, the serial sim makes and steps its own.
   */
  robot: SimRobot;
  arenaSeed: number;
  episodeSeed: number;
  /** Wait before making the pty pair again after socat died. */
  restartDelayMs: number;
  log: (message: string) => void;
}

export interface SerialSim {
  readonly ptyPath: string;
  /** Where the device takes the robot's wheel and IMU samples; fed by whoever steps the robot. */
  readonly sensors: SensorSink;
  /** socat's process id (for tests that pull the plug), undefined while it is being restarted. */
  socatPid(): number | undefined;
  close(): Promise<void>;
}

/** Bytes the device may have waiting to go out before it drops new frames (nobody is reading). */
const MAX_DEVICE_BACKLOG_BYTES = 4096;
const POLL_PERIOD_MS = 20;

export async function startSerialSim(given: Partial<SerialSimOptions> & Pick<SerialSimOptions, 'ptyPath'>): Promise<SerialSim> {
  const options = { arenaSeed: 1, episodeSeed: 1, restartDelayMs: 250, log: () => undefined, ...given };
  const robot = options.robot ?? new SimRobot({ arenaSeed: options.arenaSeed, episodeSeed: options.episodeSeed });
  const simTimeUs = (): number => Math.round(robot.simTimeSecs() * 1e6);

  let port: SerialPort | undefined;
  let pty: PtyPair | undefined;
  let closed = false;
  const device = new SimSerialDevice({
    write: (bytes) => {
      if (port?.isOpen && port.writableLength <= MAX_DEVICE_BACKLOG_BYTES) port.write(Buffer.from(bytes));
    },
    drive: (command) => robot.drive(command),
    nowMs: () => performance.now(),
  });
  let latestImu: Imu | undefined;
  const sensors: SensorSink = {
    wants: (stream) => stream === 'joints' || stream === 'imu',
    receive: (output) => {
      if (output.stream === 'imu') latestImu = output.msg;
      else if (output.stream === 'joints') device.sample(Math.round(output.simTimeSecs * 1e6), output.msg, latestImu);
    },
  };

  const connect = async (): Promise<void> => {
    const made = await openPtyPair(options.ptyPath);
    const opened = new SerialPort({ path: made.devicePath, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => opened.open((error) => (error ? reject(error) : resolve())));
    if (closed) {
      opened.close();
      await made.close();
      return;
    }
    pty = made;
    opened.on('data', (chunk: Buffer) => device.receive(chunk));
    opened.on('error', (error) => options.log(`serial sim: device side error: ${error.message}`));
    port = opened;
    device.resetReceiver();
    const current = pty;
    void current.exited.then(() => onSocatExit(current));
  };
  const onSocatExit = (exitedPty: PtyPair): void => {
    if (closed || exitedPty !== pty) return;
    options.log(`serial sim: socat exited; making ${options.ptyPath} again in ${options.restartDelayMs} ms`);
    pty = undefined;
    const stale = port;
    port = undefined;
    if (stale?.isOpen) stale.close();
    setTimeout(() => {
      if (closed) return;
      connect().catch((error: unknown) => options.log(`serial sim: cannot make the pty again: ${error instanceof Error ? error.message : String(error)}`));
    }, options.restartDelayMs);
  };
  await connect();

  const pollTimer = setInterval(() => device.poll(simTimeUs()), POLL_PERIOD_MS);
  let stepper: RealtimeStepper | undefined;
  if (!options.robot) {
    stepper = new RealtimeStepper(
      {
        step: (stepSecs) => robot.step(stepSecs, sensors),
        skipped: (skippedSecs) => options.log(`serial sim: fell ${skippedSecs.toFixed(2)} s behind real time and skipped ahead`),
        failed: (error) => options.log(`serial sim: the simulated robot stopped: ${error instanceof Error ? error.message : String(error)}`),
      },
      robot.simTimeSecs(),
    );
    stepper.start();
  }

  return {
    ptyPath: options.ptyPath,
    sensors,
    socatPid: () => pty?.process.pid,
    async close() {
      closed = true;
      clearInterval(pollTimer);
      stepper?.stop();
      const openPort = port;
      port = undefined;
      if (openPort?.isOpen) await new Promise<void>((resolve) => openPort.close(() => resolve()));
      await pty?.close();
    },
  };
}
