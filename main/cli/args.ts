// Parses `--robot`: the built-in simulated robot, a rosbridge server, or a serial port.
import { parseRobotAddress, RobotAddressError, type RobotSpec } from '../links/robotAddress.ts';

export type { RobotSpec };

export function parseRobotSpec(text: string | undefined): RobotSpec {
  try {
    return parseRobotAddress(text);
  } catch (error) {
    if (error instanceof RobotAddressError) throw new UsageError(`--robot ${error.message}`);
    throw error;
  }
}

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Something the operator must fix before the core can start (a missing encoder manifest, say): printed without a stack, exit code 1. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
