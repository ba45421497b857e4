// What `reins bench ui` runs inside the page. Plain JavaScript source, not functions: the core runs
// through a loader whose transforms may add helpers that do not exist in the page.
import type { Page } from 'playwright-core';
import type { ShownSample } from './uiSamples.ts';

export interface PageFrames {
  /** One sample per animation frame: its time (page clock, ms) and the camera stamp on screen. */
  shown: ShownSample[];
  /**
   * Main-thread time per animation frame: from the frame's requestAnimationFrame callback to the
   * first task that runs after it — the frame's own work (callbacks, style, layout, paint) plus
   * whatever else held the main thread then (socket messages, camera decoding and drawing).
   */
  frameWorkMs: number[];
  /** Time between consecutive animation frames (the display's pace, 16.7 ms at 60 Hz). */
  frameIntervalMs: number[];
  /** Camera frames the canvas drew during the window (data-drawn-frames). */
  drawnFrames: number;
}

const FRAMES_SOURCE = `(durationMs) => new Promise((resolve) => {
  const canvas = document.querySelector('[data-testid="camera-canvas"]');
  const drawn = () => Number(canvas?.dataset.drawnFrames ?? 0);
  const stamp = () => (canvas?.dataset.lastStampMs === undefined ? undefined : Number(canvas.dataset.lastStampMs));
  const shown = [], frameWorkMs = [], frameIntervalMs = [];
  const drawnAtStart = drawn();
  const channel = new MessageChannel();
  let frameStartMs = 0;
  channel.port1.onmessage = () => frameWorkMs.push(performance.now() - frameStartMs);
  const startMs = performance.now();
  let previousMs;
  const onFrame = (frameMs) => {
    frameStartMs = performance.now();
    channel.port2.postMessage(0);
    if (previousMs !== undefined) frameIntervalMs.push(frameMs - previousMs);
    previousMs = frameMs;
    shown.push({ atMs: frameStartMs, stampMs: stamp() });
    if (frameStartMs - startMs < durationMs) requestAnimationFrame(onFrame);
    else setTimeout(() => resolve({ shown, frameWorkMs, frameIntervalMs, drawnFrames: drawn() - drawnAtStart }), 50);
  };
  requestAnimationFrame(onFrame);
})`;

const PLOT_WORK_SOURCE = `(durationMs, measureName) => new Promise((resolve) => {
  let pendingMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === measureName) pendingMs += entry.duration;
  });
  observer.observe({ type: 'measure' });
  const plotWorkMs = [];
  const startMs = performance.now();
  let first = true;
  const onFrame = () => {
    // Observers are told after the work: what arrived since the last frame belongs to the frame just past.
    for (const entry of observer.takeRecords()) if (entry.name === measureName) pendingMs += entry.duration;
    if (!first) plotWorkMs.push(pendingMs);
    first = false;
    pendingMs = 0;
    if (performance.now() - startMs < durationMs) requestAnimationFrame(onFrame);
    else {
      observer.disconnect();
      resolve(plotWorkMs);
    }
  };
  requestAnimationFrame(onFrame);
})`;

/**
 * The plot panel's own main-thread work per animation frame (what it reports as User Timing measures
 * named `measureName`: storing arriving samples, redrawing), over durationMs; 0 for a frame without any.
 */
export function watchPlotWork(page: Page, durationMs: number, measureName: string): Promise<number[]> {
  return page.evaluate(`(${PLOT_WORK_SOURCE})(${durationMs}, ${JSON.stringify(measureName)})`) as Promise<number[]>;
}

/** Watches the page's animation frames for durationMs while the caller drives. */
export function watchFrames(page: Page, durationMs: number): Promise<PageFrames> {
  return page.evaluate(`(${FRAMES_SOURCE})(${durationMs})`) as Promise<PageFrames>;
}

/** Records, in the page, the epoch time (ms) of every key press (not auto-repeats) from now on. */
export async function recordKeyDowns(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__reinsBenchKeyDownsMs = [];
    document.addEventListener('keydown', (event) => {
      if (!event.repeat) window.__reinsBenchKeyDownsMs.push(performance.timeOrigin + event.timeStamp);
    }, { capture: true });
  })()`);
}

/** The epoch time (ms) of the latest key press recorded in the page. */
export async function lastKeyDownMs(page: Page): Promise<number> {
  const at = (await page.evaluate('window.__reinsBenchKeyDownsMs.at(-1)')) as number | undefined;
  if (at === undefined) throw new Error('the page saw no key press');
  return at;
}

/** Drawn camera frames so far, from the camera canvas. */
export async function drawnCameraFrames(page: Page): Promise<number> {
  return Number(await page.getByTestId('camera-canvas').getAttribute('data-drawn-frames'));
}
