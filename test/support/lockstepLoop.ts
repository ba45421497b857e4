// A control loop on the simulated robot in lockstep, with a hand-driven clock and every command the
// robot was sent, for tests of what reaches the wire. The caller closes the loop.
import type { Policy } from '../../main/core/policy.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import type { Twist } from '../../main/core/messages.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import type { Perception } from '../../main/core/perception.ts';
import { createSimLink } from '../../main/sim/lockstepLink.ts';
import { testEncoderManifest } from './testEncoders.ts';

export interface PublishedCommand {
  atMs: number;
  linearMps: number;
  angularRadps: number;
}

export async function lockstepLoop(options: { rateHz?: number; perception?: Perception; policy?: Policy } = {}) {
  const rateHz = options.rateHz ?? 10;
  let nowMs = 1_000_000;
  const link = createSimLink({ epochMs: nowMs });
  const published: PublishedCommand[] = [];
  const publish = link.publish.bind(link);
  link.publish = (topic: string, twist: Twist) => {
    published.push({ atMs: nowMs, linearMps: twist.linearMps.x, angularRadps: twist.angularRadps.z });
    return publish(topic, twist);
  };
  const perception = options.perception ?? (await loadPerception(testEncoderManifest()));
  const loop = await createControlLoop(link, { rateHz, clock: () => nowMs, perception, ...(options.policy ? { policy: options.policy } : {}) });
  const periodMs = 1000 / rateHz;
  return {
    link,
    loop,
    published,
    now: () => nowMs,
    /** Advances the robot and the clock by whole ticks, with the operator's heartbeat kept alive. */
    async ticks(count: number, heartbeat = true) {
      for (let i = 0; i < count; i++) {
        link.advance(periodMs / 1000);
        nowMs += periodMs;
        if (heartbeat) loop.heartbeat();
        loop.checkWatchdog();
        await loop.tick();
      }
    },
  };
}
