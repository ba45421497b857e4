// The 3D view as the panel drives it: in a worker of its own where the browser can hand a canvas to
// one (OffscreenCanvas, module workers), else on the page. Either way the panel makes the same calls
// and hears the same things back: clouds drawn, and the view's notes and facts after each change of
// scene, model or map (at once on the page, a message later from the worker).
import type { OccupancyGridFrame, ScanFrame, SceneDrawingsEvent, SceneEvent } from '../../lib/contract.ts';
import { checkRobotXml } from './robotXml.ts';
import type { RobotFileAccess } from './robotMeshes.ts';
import type { CanvasBox, ForwardedCall, ForwardedInput, FromSceneWorker, ToSceneWorker } from './sceneProtocol.ts';
import { REPORTING_METHODS } from './sceneProtocol.ts';
import type { SceneFacts } from './sceneView.ts';

export interface SceneListener {
  /** After each render that drew a new cloud: how many clouds have been drawn. */
  cloudsDrawn(count: number): void;
  /** The view's words for the operator and what it draws now. */
  report(notes: string[], facts: SceneFacts): void;
  /** The view cannot draw (WebGL did not start, or its context was lost): why, in words. */
  failed(problem: string): void;
}

export interface SceneHost {
  /** Where the view renders: 'worker' (its own thread) or 'page'. */
  readonly thread: 'worker' | 'page';
  setCloud(xyzM: Float32Array): void;
  setScan(scan: ScanFrame): void;
  setPredictedPath(pointsM: ReadonlyArray<readonly [number, number]>): void;
  setScene(event: SceneEvent): void;
  setRobot(revision: number, source: string, urdf: string): void;
  setMap(frame: OccupancyGridFrame): void;
  /** The planned paths and markers (sceneMarkers.ts). */
  setDrawings(event: SceneDrawingsEvent): void;
  resize(widthPx: number, heightPx: number, pixelRatio: number): void;
  dispose(): void;
}

/**
 * Opens the view on `canvas`; `preferWorker: false` keeps it on the page. `robotFiles`: where the robot
 * model's meshes are fetched from (the core's origin and token); without it they are left out with a note.
 */
export async function openSceneHost(canvas: HTMLCanvasElement, listener: SceneListener, preferWorker = true, robotFiles?: RobotFileAccess): Promise<SceneHost> {
  if (preferWorker && typeof canvas.transferControlToOffscreen === 'function' && typeof Worker === 'function')
    return new WorkerSceneHost(canvas, listener, robotFiles);
  const { SceneView } = await import('./sceneView.ts');
  const view: InstanceType<typeof SceneView> = new SceneView(canvas, canvas, (count) => listener.cloudsDrawn(count), {
    ...(robotFiles ? { robotFiles } : {}),
    // The model's meshes arrived after the call that set it: its notes and facts again.
    onChanged: () => listener.report(view.notes(), view.facts()),
  });
  const call = <M extends ForwardedCall>(method: M['method'], args: M['args']): void => {
    (view[method] as (...forwarded: unknown[]) => void)(...args);
    if (REPORTING_METHODS.has(method)) listener.report(view.notes(), view.facts());
  };
  return {
    thread: 'page',
    setCloud: (...args) => call('setCloud', args),
    setScan: (...args) => call('setScan', args),
    setPredictedPath: (...args) => call('setPredictedPath', args),
    setScene: (...args) => call('setScene', args),
    setRobot: (...args) => call('setRobot', args),
    setMap: (...args) => call('setMap', args),
    setDrawings: (...args) => call('setDrawings', args),
    resize: (...args) => call('resize', args),
    dispose: () => view.dispose(),
  };
}

const FORWARDED_INPUT = ['pointerdown', 'pointermove', 'pointerup', 'pointercancel', 'wheel', 'contextmenu'] as const;

class WorkerSceneHost implements SceneHost {
  readonly thread = 'worker';
  readonly #worker: Worker;
  readonly #canvas: HTMLCanvasElement;
  readonly #listener: SceneListener;
  #disposed = false;

  constructor(canvas: HTMLCanvasElement, listener: SceneListener, robotFiles: RobotFileAccess | undefined) {
    this.#canvas = canvas;
    this.#listener = listener;
    this.#worker = new Worker(new URL('./sceneWorker.ts', import.meta.url), { type: 'module', name: '3D view' });
    this.#worker.onmessage = (event: MessageEvent<FromSceneWorker>) => this.#heard(event.data);
    this.#worker.onerror = (event) => {
      event.preventDefault();
      listener.failed(`the 3D view's worker stopped (${event.message || 'it could not load'})`);
    };
    const offscreen = canvas.transferControlToOffscreen();
    this.#send({ kind: 'start', canvas: offscreen, box: this.#box(), ...(robotFiles ? { robotFiles } : {}) }, [offscreen]);
    for (const type of FORWARDED_INPUT) canvas.addEventListener(type, this.#onInput, { passive: false });
  }

  setCloud(xyzM: Float32Array): void {
    this.#send({ kind: 'call', method: 'setCloud', args: [xyzM] });
  }
  setScan(scan: ScanFrame): void {
    this.#send({ kind: 'call', method: 'setScan', args: [scan] });
  }
  setPredictedPath(pointsM: ReadonlyArray<readonly [number, number]>): void {
    this.#send({ kind: 'call', method: 'setPredictedPath', args: [pointsM] });
  }
  setScene(event: SceneEvent): void {
    this.#send({ kind: 'call', method: 'setScene', args: [event] });
  }
  setRobot(revision: number, source: string, urdf: string): void {
    // The worker's XML parser forgives what the browser's refuses: the browser's verdict goes along.
    this.#send({ kind: 'call', method: 'setRobot', args: [revision, source, urdf, checkRobotXml(urdf, source)] });
  }
  setMap(frame: OccupancyGridFrame): void {
    this.#send({ kind: 'call', method: 'setMap', args: [frame] });
  }
  setDrawings(event: SceneDrawingsEvent): void {
    this.#send({ kind: 'call', method: 'setDrawings', args: [event] });
  }
  resize(widthPx: number, heightPx: number, pixelRatio: number): void {
    this.#send({ kind: 'call', method: 'resize', args: [widthPx, heightPx, pixelRatio] });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const type of FORWARDED_INPUT) this.#canvas.removeEventListener(type, this.#onInput);
    this.#send({ kind: 'dispose' });
  }

  #send(message: ToSceneWorker, transfer: Transferable[] = []): void {
    if (message.kind !== 'dispose' && this.#disposed) return;
    this.#worker.postMessage(message, transfer);
  }

  #heard(message: FromSceneWorker): void {
    if (this.#disposed) return;
    if (message.kind === 'drawn') this.#listener.cloudsDrawn(message.clouds);
    else if (message.kind === 'report') this.#listener.report(message.notes, message.facts);
    else this.#listener.failed(message.problem);
  }

  #box(): CanvasBox {
    const rect = this.#canvas.getBoundingClientRect();
    return { left: rect.left, top: rect.top, width: rect.width, height: rect.height };
  }

  /** The browser's own handling is kept off the canvas (no page scroll on the wheel, no context menu), as the orbit controls do on the page. */
  readonly #onInput = (event: Event): void => {
    const pointer = event as PointerEvent;
    const wheel = event as WheelEvent;
    if (event.type === 'wheel' || event.type === 'contextmenu') event.preventDefault();
    if (event.type === 'pointerdown') this.#canvas.setPointerCapture(pointer.pointerId);
    if ((event.type === 'pointerup' || event.type === 'pointercancel') && this.#canvas.hasPointerCapture(pointer.pointerId))
      this.#canvas.releasePointerCapture(pointer.pointerId);
    const input: ForwardedInput = {
      type: event.type as ForwardedInput['type'],
      pointerId: pointer.pointerId ?? 0,
      pointerType: pointer.pointerType ?? 'mouse',
      button: pointer.button ?? 0,
      buttons: pointer.buttons ?? 0,
      clientX: pointer.clientX ?? 0,
      clientY: pointer.clientY ?? 0,
      pageX: pointer.pageX ?? 0,
      pageY: pointer.pageY ?? 0,
      ctrlKey: pointer.ctrlKey ?? false,
      metaKey: pointer.metaKey ?? false,
      shiftKey: pointer.shiftKey ?? false,
      altKey: pointer.altKey ?? false,
      deltaX: wheel.deltaX ?? 0,
      deltaY: wheel.deltaY ?? 0,
      deltaZ: wheel.deltaZ ?? 0,
      deltaMode: wheel.deltaMode ?? 0,
    };
    this.#send({ kind: 'input', input, box: this.#box() });
  };
}
