// Times in a recorded log as the operator reads them: the wall-clock time a moment happened (the
// log's times are epoch ms), and how far into the log it lies.

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** The local time of day of an epoch time, to a tenth of a second: "12:03:04.2". */
export function formatClockTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return '—';
  // Rounded to the tenth first, so 12:03:04.96 reads 12:03:05.0 and never 12:03:04.10.
  const date = new Date(Math.round(epochMs / 100) * 100);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${Math.floor(date.getMilliseconds() / 100)}`;
}

/** A span of log time, to a tenth of a second: "0:31.4", "12:05.0", "1:02:03.0"; negative with a minus. */
export function formatLogOffset(offsetMs: number): string {
  if (!Number.isFinite(offsetMs)) return '—';
  const tenths = Math.round(Math.abs(offsetMs) / 100);
  const sign = offsetMs < 0 && tenths > 0 ? '-' : '';
  const hours = Math.floor(tenths / 36_000);
  const minutes = Math.floor((tenths % 36_000) / 600);
  const seconds = Math.floor((tenths % 600) / 10);
  const tenth = tenths % 10;
  const clock = hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
  return `${sign}${clock}.${tenth}`;
}
