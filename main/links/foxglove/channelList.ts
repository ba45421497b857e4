// The channels a foxglove server advertises, as the link keeps them: each checked at the edge (a
// malformed entry is refused alone, with a reason), at most one channel per topic (the first), and a
// bounded list: a server advertising more than `maxChannels` keeps only the topics the cockpit
// wants beyond that, so 10,000 channels cost neither memory nor a flood of work.
import { z } from 'zod';

export const AdvertisedChannelSchema = z.object({
  id: z.number().int().min(0).max(0xffff_ffff),
  topic: z.string().min(1).max(1024),
  encoding: z.string().max(64),
  schemaName: z.string().max(1024),
  schema: z.string(),
  schemaEncoding: z.string().max(64).optional(),
});

export type AdvertisedChannel = z.infer<typeof AdvertisedChannelSchema>;

export interface ChannelChanges {
  added: AdvertisedChannel[];
  /** Entries that were not channels: why, for the operator. */
  malformed: string[];
  /** Channels not kept because the list was full. */
  overflow: number;
}

export class ChannelList {
  private readonly byId = new Map<number, AdvertisedChannel>();
  private readonly byTopic = new Map<string, AdvertisedChannel>();

  constructor(
    private readonly maxChannels: number,
    /** Topics kept even when the list is full: the topic map's and the subscribed ones. */
    private readonly wanted: (topic: string) => boolean,
  ) {}

  advertise(entries: unknown): ChannelChanges {
    const changes: ChannelChanges = { added: [], malformed: [], overflow: 0 };
    if (!Array.isArray(entries)) {
      changes.malformed.push('"channels" is not a list');
      return changes;
    }
    for (const entry of entries) {
      const parsed = AdvertisedChannelSchema.safeParse(entry);
      if (!parsed.success) {
        changes.malformed.push(
          `${describeEntry(entry)}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'entry'} ${issue.message}`).join('; ')}`,
        );
        continue;
      }
      const channel = parsed.data;
      if (this.byId.has(channel.id) || this.byTopic.has(channel.topic)) continue;
      if (this.byId.size >= this.maxChannels && !this.wanted(channel.topic)) {
        changes.overflow++;
        continue;
      }
      this.byId.set(channel.id, channel);
      this.byTopic.set(channel.topic, channel);
      changes.added.push(channel);
    }
    return changes;
  }

  /** Forgets channels the server no longer offers; returns those that were kept. */
  unadvertise(ids: unknown): AdvertisedChannel[] {
    if (!Array.isArray(ids)) return [];
    const removed: AdvertisedChannel[] = [];
    for (const id of ids) {
      const channel = typeof id === 'number' ? this.byId.get(id) : undefined;
      if (channel === undefined) continue;
      this.byId.delete(id as number);
      this.byTopic.delete(channel.topic);
      removed.push(channel);
    }
    return removed;
  }

  get(id: number): AdvertisedChannel | undefined {
    return this.byId.get(id);
  }

  forTopic(topic: string): AdvertisedChannel | undefined {
    return this.byTopic.get(topic);
  }

  all(): IterableIterator<AdvertisedChannel> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }
}

function describeEntry(entry: unknown): string {
  if (typeof entry === 'object' && entry !== null && typeof (entry as { topic?: unknown }).topic === 'string')
    return `channel ${(entry as { topic: string }).topic}`;
  return 'a channel';
}
