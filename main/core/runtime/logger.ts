// Logs go to stderr as JSON lines (stdout is for what the user asked for: the UI line, bench tables).
import { pino, type Logger } from 'pino';

export function createLogger(name: string): Logger {
  return pino({ name, level: process.env.REINS_LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
}
