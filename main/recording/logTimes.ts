// Times in a log are whole nanoseconds (bigint), as MCAP stores them and as a ROS header stamp
// holds them; they become milliseconds only where they meet the rest of Reins (a robot's receive
// and source times, positions on the review timeline) and the operator (formatLogTime). Going
// through `ms * 1e6` in floating point is off by up to ~128 ns at today's epoch (a double's step
// there is 256 ns), which is enough for a log time to miss its own header stamp, so both
// conversions split the whole milliseconds from the fraction.

/** Nanoseconds since the epoch for a time in milliseconds; 0 for a time that is not a positive number. */
export function nsFromMs(timeMs: number): bigint {
  if (!Number.isFinite(timeMs) || timeMs <= 0) return 0n;
  const wholeMs = Math.floor(timeMs);
  return BigInt(wholeMs) * 1_000_000n + BigInt(Math.round((timeMs - wholeMs) * 1e6));
}

/** Milliseconds for a time in nanoseconds: the double nearest to it, for timelines and displays. */
export function msFromNs(timeNs: bigint): number {
  return Number(timeNs / 1_000_000n) + Number(timeNs % 1_000_000n) / 1e6;
}

/** A ROS time (`header.stamp`: whole seconds and nanoseconds) for a time in nanoseconds. */
export function rosTimeFromNs(timeNs: bigint): { sec: number; nsec: number } {
  return { sec: Number(timeNs / 1_000_000_000n), nsec: Number(timeNs % 1_000_000_000n) };
}

/** A log time as an operator reads it in messages about a log: the wall-clock time of day (local), to a tenth of a second, as the review timeline shows it. */
export function formatLogTime(timeNs: bigint): string {
  const timeMs = Number(timeNs / 1_000_000n);
  const date = new Date(timeMs);
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.${Math.floor(date.getMilliseconds() / 100)}`;
}
