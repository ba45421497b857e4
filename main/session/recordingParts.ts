// The MCAP recorder a session records through (`recording/sessionRecording.ts` opens one per session
// file), for what measures it alone: the recording bench hands it messages as a session's link would.
import type { Received, RobotMessage } from '../core/messages.ts';
import { Recorder, type RecorderOptions, type RecorderStats } from '../recording/recorder.ts';

export type { RecorderStats };

/** What a recorder is handed and what it reports: queued messages (never waiting on the disk), its stats, and a close that writes the rest. */
export interface MessageRecorder {
  /** Queues a message as received; false when it was dropped. */
  record(received: Received<RobotMessage>): boolean;
  stats(): RecorderStats;
  /** Writes what is queued, then the last chunk, indexes and footer. */
  close(): Promise<void>;
}

/** A recorder writing to `path` (rotating past its size limit), with the recorder's defaults; no quota unless given one. */
export function openRecorder(path: string, options: Omit<RecorderOptions, 'path'> = {}): Promise<MessageRecorder> {
  return Recorder.open({ ...options, path });
}
