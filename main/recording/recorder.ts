// The session recorder. `record()` and `recordEvent()` only enqueue (the control loop never waits on
// the disk); a background drain encodes and writes, a bounded queue drops and counts what does not
// fit, files rotate at a size limit, and a quota deletes the oldest logs with a visible warning.
// A chunk is written when it is full or when it has held messages for `maxChunkAgeMs` of wall time,
// whichever comes first, so a crash loses at most about that much of even a slow stream. Each new
// file after the size limit starts with the latest RosFields message of every topic (logged at the
// file's start, published when it was), so a latched topic sent once (/robot_description,
// /tf_static, /map) is in every file a review may open alone.
import type { CoreAlert } from '../core/alert.ts';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Received, RobotMessage, RosFields } from '../core/messages.ts';
import { zstdReady } from './chunkCompression.ts';
import { EntryEncoder, entryBytes, type RecordEntry } from './entryEncoding.ts';
import { DEFAULT_CHUNK_BYTES, McapFile } from './mcapFile.ts';
import { enforceQuota } from './recordingQuota.ts';
import type { EventChannel } from './reinsEvents.ts';

export interface RecorderOptions {
  /** The first file's path; later ones (after the size limit) get `-2`, `-3`… before `.mcap`. */
  path: string;
  maxFileBytes?: number;
  /** Over the folder of `path`: the oldest `.mcap` files there are deleted past it. Undefined: no quota. */
  quotaBytes?: number;
  maxQueuedMessages?: number;
  maxQueuedBytes?: number;
  chunkBytes?: number;
  /**
   * Wall-clock ms after its first message that a chunk is written even when not full (default
   * 1000): what a SIGKILL can lose at most. Wall time, not log time: it must also fire when the
   * streams go quiet, and log times come from the robot's clock.
   */
  maxChunkAgeMs?: number;
  /** Told after every finished chunk (the crash test waits on it). */
  onChunkWritten?: (progress: { chunks: number; messages: number }) => void;
}

export interface RecorderStats {
  queued: number;
  dropped: number;
  messagesAdded: number;
  chunksWritten: number;
  files: string[];
  /** `.mcap` files the quota deleted from the folder (this session's and older ones). */
  deletedFiles: number;
  /** This recorder's own files among them, and the messages they held: what a read-back of `files` cannot find. */
  ownFilesDeleted: string[];
  messagesDeleted: number;
}

const DEFAULTS = { maxFileBytes: 1024 ** 3, maxQueuedMessages: 2000, maxQueuedBytes: 64 * 1024 ** 2, maxChunkAgeMs: 1000 };
const QUOTA_CHECK_EVERY_CHUNKS = 16;

export class Recorder {
  private readonly queue: Array<{ entry: RecordEntry; bytes: number }> = [];
  private readonly encoder = new EntryEncoder();
  private readonly files: string[] = [];
  /** topic → its latest RosFields message written, to open each new file with. */
  private readonly latestFields = new Map<string, Received<RosFields>>();
  private readonly alertsByKey = new Map<string, CoreAlert>();
  private readonly alertListeners = new Set<(alerts: readonly CoreAlert[]) => void>();
  private readonly options: Required<Omit<RecorderOptions, 'quotaBytes' | 'onChunkWritten'>> & Pick<RecorderOptions, 'quotaBytes' | 'onChunkWritten'>;
  private queuedBytes = 0;
  private dropped = 0;
  private messagesAdded = 0;
  private chunksInClosedFiles = 0;
  private chunksAtLastQuotaCheck = 0;
  private deletedFiles = 0;
  /** Messages in each of this recorder's finished files, until the quota deletes one. */
  private readonly messagesInFinishedFiles = new Map<string, number>();
  private messagesAtFileStart = 0;
  private readonly ownFilesDeleted: string[] = [];
  private messagesDeleted = 0;
  private drain: Promise<void> | undefined;
  private chunkAgeTimer: NodeJS.Timeout | undefined;
  private failed = false;
  private closing = false;

  private constructor(
    private file: McapFile,
    options: RecorderOptions,
  ) {
    this.options = { ...DEFAULTS, chunkBytes: DEFAULT_CHUNK_BYTES, ...options };
    this.files.push(file.path);
  }

  static async open(options: RecorderOptions): Promise<Recorder> {
    await zstdReady();
    await mkdir(dirname(options.path), { recursive: true });
    const recorder = new Recorder(await McapFile.create(options.path, options.chunkBytes), options);
    await recorder.checkQuota();
    return recorder;
  }

  /** Queues a message as received; false when it was dropped (queue full, recorder failed or closed). */
  record(received: Received<RobotMessage>): boolean {
    return this.enqueue({ kind: 'sensor', received });
  }

  recordEvent(channel: EventChannel, timeMs: number, value: unknown): boolean {
    return this.enqueue({ kind: 'event', channel, timeMs, value });
  }

  stats(): RecorderStats {
    return {
      queued: this.queue.length,
      dropped: this.dropped,
      messagesAdded: this.messagesAdded,
      chunksWritten: this.chunksInClosedFiles + this.file.chunksWritten,
      files: [...this.files],
      deletedFiles: this.deletedFiles,
      ownFilesDeleted: [...this.ownFilesDeleted],
      messagesDeleted: this.messagesDeleted,
    };
  }

  alerts(): CoreAlert[] {
    return [...this.alertsByKey.values()];
  }

  onAlerts(listener: (alerts: readonly CoreAlert[]) => void): () => void {
    this.alertListeners.add(listener);
    return () => this.alertListeners.delete(listener);
  }

  /** Resolves once everything queued so far is written (into the chunk being filled, at least). */
  async idle(): Promise<void> {
    while (this.drain !== undefined) await this.drain;
  }

  /** Writes what is queued, then the last chunk, indexes and footer. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.chunkAgeTimer);
    await this.idle();
    // After a failure the writer's state is unknown: the file keeps what its finished chunks hold.
    if (this.failed) await this.file.abandon();
    else await this.file.close();
  }

  private enqueue(entry: RecordEntry): boolean {
    if (this.closing || this.failed) return false;
    const bytes = entryBytes(entry);
    if (this.queue.length >= this.options.maxQueuedMessages || this.queuedBytes + bytes > this.options.maxQueuedBytes) {
      this.dropped++;
      this.raise({
        key: 'recording-dropped',
        severity: 'warn',
        message: `Recording dropped ${this.dropped} message${this.dropped === 1 ? '' : 's'}: the disk could not keep up`,
        hint: 'Record to a faster disk, or lower the camera resolution or rate.',
      });
      return false;
    }
    this.queue.push({ entry, bytes });
    this.queuedBytes += bytes;
    this.scheduleDrain();
    return true;
  }

  private scheduleDrain(): void {
    if (this.drain !== undefined) return;
    // setImmediate, not a microtask: the encoding and writing must not run inside the caller's tick.
    this.drain = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drainQueue())
      .finally(() => {
        this.drain = undefined;
        if (this.queue.length > 0 && !this.failed) this.scheduleDrain();
      });
  }

  private async drainQueue(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) {
        this.queuedBytes -= item.bytes;
        // Rotate before a message, not after one: the last file of a session is never empty.
        if (this.file.sizeBytes >= this.options.maxFileBytes) await this.rotate(entryTimeMs(item.entry));
        await this.write(item.entry);
      }
      await this.finishChunkByAge();
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private async write(entry: RecordEntry): Promise<void> {
    if (entry.kind === 'sensor' && entry.received.msg.kind === 'RosFields') this.latestFields.set(entry.received.topic, entry.received as Received<RosFields>);
    const encoded = this.encoder.encode(entry);
    const chunksBefore = this.file.chunksWritten;
    await this.file.add(encoded.channel, encoded.logTimeNs, encoded.publishTimeNs, encoded.data);
    this.messagesAdded++;
    if (this.file.chunksWritten !== chunksBefore) await this.afterChunk();
  }

  /** Writes the open chunk once it is old enough; otherwise makes sure a timer comes back for it. */
  private async finishChunkByAge(): Promise<void> {
    const ageMs = this.file.openChunkAgeMs();
    if (ageMs === 0 || this.closing) return;
    if (ageMs >= this.options.maxChunkAgeMs) {
      await this.file.finishChunk();
      await this.afterChunk();
    } else if (this.chunkAgeTimer === undefined) {
      // The timer only wakes the drain: the chunk is written there, in turn with everything else.
      this.chunkAgeTimer = setTimeout(() => {
        this.chunkAgeTimer = undefined;
        if (!this.failed) this.scheduleDrain();
      }, this.options.maxChunkAgeMs - ageMs);
      this.chunkAgeTimer.unref();
    }
  }

  private async afterChunk(): Promise<void> {
    const chunks = this.chunksInClosedFiles + this.file.chunksWritten;
    this.options.onChunkWritten?.({ chunks, messages: this.messagesAdded });
    if (chunks - this.chunksAtLastQuotaCheck >= QUOTA_CHECK_EVERY_CHUNKS) await this.checkQuota();
  }

  /** A new file from `atMs` on, opened with the latest message of every RosFields topic (logged then). */
  private async rotate(atMs: number): Promise<void> {
    const previous = this.file;
    await previous.close();
    this.chunksInClosedFiles += previous.chunksWritten;
    this.messagesInFinishedFiles.set(previous.path, this.messagesAdded - this.messagesAtFileStart);
    this.messagesAtFileStart = this.messagesAdded;
    this.file = await McapFile.create(rotatedPath(this.options.path, this.files.length + 1), this.options.chunkBytes);
    this.files.push(this.file.path);
    await this.checkQuota();
    for (const received of [...this.latestFields.values()])
      await this.write({ kind: 'sensor', received: { ...received, receiveTimeMs: Math.max(atMs, received.receiveTimeMs) } });
  }

  private async checkQuota(): Promise<void> {
    this.chunksAtLastQuotaCheck = this.chunksInClosedFiles + this.file.chunksWritten;
    if (this.options.quotaBytes === undefined) return;
    const quotaBytes = this.options.quotaBytes;
    const result = await enforceQuota(dirname(this.options.path), quotaBytes, new Set([this.file.path]));
    if (result.deletedPaths.length === 0 && result.totalBytes <= quotaBytes) return;
    this.deletedFiles += result.deletedPaths.length;
    for (const path of result.deletedPaths) {
      const messages = this.messagesInFinishedFiles.get(path);
      if (messages === undefined) continue;
      this.messagesInFinishedFiles.delete(path);
      this.ownFilesDeleted.push(path);
      this.messagesDeleted += messages;
    }
    const quotaMb = (quotaBytes / 1024 ** 2).toFixed(0);
    this.raise({
      key: 'recording-quota',
      severity: 'warn',
      message:
        result.totalBytes > quotaBytes
          ? `Recordings take ${(result.totalBytes / 1024 ** 2).toFixed(0)} MB, over the ${quotaMb} MB quota, after deleting every older log`
          : `Deleted ${this.deletedFiles} oldest recording${this.deletedFiles === 1 ? '' : 's'} to stay under the ${quotaMb} MB quota`,
      hint: `Move logs you want to keep out of ${dirname(this.options.path)}, or raise the recording quota.`,
    });
  }

  private fail(error: Error): void {
    this.failed = true;
    this.dropped += this.queue.length;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.raise({
      key: 'recording-failed',
      severity: 'error',
      message: `Recording stopped: ${error.message}`,
      hint: `Check free space and permissions for ${dirname(this.options.path)}; the log up to the last finished chunk is readable.`,
    });
  }

  private raise(alert: CoreAlert): void {
    const previous = this.alertsByKey.get(alert.key);
    if (previous?.message === alert.message) return;
    this.alertsByKey.set(alert.key, alert);
    const alerts = this.alerts();
    for (const listener of this.alertListeners) listener(alerts);
  }
}

function entryTimeMs(entry: RecordEntry): number {
  return entry.kind === 'event' ? entry.timeMs : entry.received.receiveTimeMs;
}

export function rotatedPath(path: string, index: number): string {
  const name = basename(path, '.mcap');
  return join(dirname(path), `${name}-${index}.mcap`);
}
