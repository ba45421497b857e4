// A recorded log as the operator reads it: the wall-clock time a moment happened (the log's times
// are epoch ms), how far into the log it lies, and the log's name cut to fit.

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

/** A long log name cut in the middle, so its start and its end (the time it was recorded) both show. */
export function shortLogName(fileName: string, maxChars: number): string {
  if (fileName.length <= maxChars) return fileName;
  const keep = Math.max(2, maxChars - 1);
  const head = Math.ceil(keep * 0.35);
  return `${fileName.slice(0, head)}…${fileName.slice(fileName.length - (keep - head))}`;
}
