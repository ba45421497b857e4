// Log times as an operator reads them in messages about a log: the wall-clock time of day (local),
// to a tenth of a second, as the review timeline shows them.
export function formatLogTime(timeNs: bigint): string {
  const timeMs = Number(timeNs / 1_000_000n);
  const date = new Date(timeMs);
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.${Math.floor(date.getMilliseconds() / 100)}`;
}
