// `watchdog-stop`: from the operator's last heartbeat to the zero command leaving the core, with the
// control loop on real timers while the policy drives the robot and the operator watches. Only the
// heartbeat watchdog can stop the robot here.
import type { Link } from '../../core/link.ts';
import type { ControlLoop } from '../../session/loopWiring.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { createControlLoop } from '../../session/loopWiring.ts';
import type { BenchRow } from './report.ts';

const HEARTBEAT_PERIOD_MS = 100;
const WATCH_BEFORE_SILENCE_MS = 400;
const GIVE_UP_MS = 2000;

export async function runWatchdogBench(link: Link, trials = 40): Promise<BenchRow[]> {
  const loop = await createControlLoop(link);
  let onStop: (() => void) | undefined;
  // The stop is the zero sent when nobody may drive any more ('idle'), not a standstill the policy asks for.
  loop.onSent((sent) => {
    if (sent.driver === 'idle') onStop?.();
  });
  loop.start();
  const stopsMs: number[] = [];
  try {
    for (let trial = 0; trial < trials; trial++) {
      stopsMs.push(await oneTrial(loop, (wake) => (onStop = wake)));
    }
  } finally {
    await loop.close();
  }
  const meanMs = stopsMs.reduce((a, b) => a + b, 0) / stopsMs.length;
  return [{ name: 'watchdog-stop', unit: 'ms', ...percentiles(stopsMs), value: meanMs }];
}

/** Lets the policy drive under heartbeats, falls silent, and resolves with last heartbeat → zero. */
function oneTrial(loop: ControlLoop, setOnStop: (wake: (() => void) | undefined) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let lastHeartbeatAt = performance.now();
    const beat = () => {
      loop.heartbeat();
      lastHeartbeatAt = performance.now();
    };
    beat();
    loop.setAutonomy(true);
    const heartbeats = setInterval(beat, HEARTBEAT_PERIOD_MS);
    setTimeout(() => {
      clearInterval(heartbeats);
      const silenceFrom = lastHeartbeatAt;
      const giveUp = setTimeout(() => reject(new Error(`no zero command within ${GIVE_UP_MS} ms of the last heartbeat`)), GIVE_UP_MS);
      setOnStop(() => {
        clearTimeout(giveUp);
        setOnStop(undefined);
        resolve(performance.now() - silenceFrom);
      });
    }, WATCH_BEFORE_SILENCE_MS);
  });
}
