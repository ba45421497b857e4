// A Perception whose encode() can be held open by the test, to see what the control loop does while
// a tick waits for its encoders. Lives in test/fakes: only tests import it.
import type { CoreAlert } from '../../main/core/alert.ts';
import type { Embedding, Perception, PerceptionStatus } from '../../main/core/perception.ts';

export class HeldPerception implements Perception {
  readonly version = 'held-1';
  readonly embeddingSize = 4;
  readonly slots = [
    { name: 'camera', offset: 0, size: 3 },
    { name: 'mask', offset: 3, size: 1 },
  ];
  encodes = 0;
  closed = false;
  private held = false;
  private waiting: Array<() => void> = [];

  /** Encodes started from now on wait until release(). */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const resume of this.waiting.splice(0)) resume();
  }

  /** How many encodes are waiting for release(). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  async encode(): Promise<Embedding> {
    this.encodes++;
    if (this.held) await new Promise<void>((resume) => this.waiting.push(resume));
    return { values: new Float32Array(this.embeddingSize), mask: { camera: false, lidar: false, proprio: false } };
  }

  status(): PerceptionStatus {
    return { version: this.version, intraOpThreads: 1, interOpThreads: 1, modalities: [] };
  }

  alerts(): CoreAlert[] {
    return [];
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
