// The 3D view on a thread of its own. The page hands over its canvas (transferControlToOffscreen) and
// the view renders here: where the browser composites in software (no GPU, or a GPU it refuses), each
// WebGL frame is read back into memory when it is handed to the compositor, and on the page's thread
// that wait held every other panel's frame (about 15 ms a render on a 2-core machine, `reins bench
// ui`). Here it holds only this view's. The orbit controls listen to a stand-in for the canvas that
// the page feeds with the operator's pointer and wheel input; URDF is read with linkedom's XML DOM,
// the page having checked it with the browser's own parser first.
import { Document as XmlDocument, DOMParser as XmlParser, Element as XmlElement } from 'linkedom';
import { EventDispatcher } from 'three';
import type { CanvasBox, ForwardedInput, FromSceneWorker, ToSceneWorker } from './sceneProtocol.ts';
import { REPORTING_METHODS } from './sceneProtocol.ts';
import { SceneView } from './sceneView.ts';

// urdf-loader parses with the global DOMParser and tells documents and elements apart with instanceof:
// a worker has neither, so linkedom's stand in (only in this worker's global scope).
const scope = globalThis as unknown as Record<string, unknown>;
scope.DOMParser ??= XmlParser;
scope.Document ??= XmlDocument;
scope.Element ??= XmlElement;

/** The canvas as the orbit controls see it: its listeners, its size and place, and itself as its own document. */
class CanvasStandIn extends EventDispatcher<Record<string, ForwardedInput & { preventDefault(): void }>> {
  readonly style: Record<string, string> = {};
  box: CanvasBox = { left: 0, top: 0, width: 0, height: 0 };

  get ownerDocument(): this {
    return this;
  }
  get clientWidth(): number {
    return this.box.width;
  }
  get clientHeight(): number {
    return this.box.height;
  }
  getBoundingClientRect(): DOMRect {
    const { left, top, width, height } = this.box;
    return { left, top, width, height, x: left, y: top, right: left + width, bottom: top + height, toJSON: () => this.box };
  }
  getRootNode(): this {
    return this;
  }
  // The page captures the pointer on the real canvas.
  setPointerCapture(): void {}
  releasePointerCapture(): void {}
  hasPointerCapture(): boolean {
    return true;
  }
  focus(): void {}

  feed(input: ForwardedInput, box: CanvasBox): void {
    this.box = box;
    // The page already kept the browser's defaults (scrolling, the context menu) for these events.
    this.dispatchEvent({ ...input, preventDefault: () => {}, stopPropagation: () => {} } as never);
  }
}

const post = (message: FromSceneWorker): void => postMessage(message);
const standIn = new CanvasStandIn();
let view: SceneView | undefined;

function report(shown: SceneView): void {
  post({ kind: 'report', notes: shown.notes(), facts: shown.facts() });
}

onmessage = (event: MessageEvent<ToSceneWorker>): void => {
  const message = event.data;
  switch (message.kind) {
    case 'start': {
      standIn.box = message.box;
      message.canvas.addEventListener('webglcontextlost', (lost) => {
        lost.preventDefault();
        post({ kind: 'failed', problem: 'the graphics driver dropped the 3D view (WebGL context lost)' });
      });
      try {
        view = new SceneView(message.canvas, standIn as unknown as HTMLElement, (clouds) => post({ kind: 'drawn', clouds }), {
          ...(message.robotFiles ? { robotFiles: message.robotFiles } : {}),
          drawCloudsAtOnce: true,
          // The model's meshes arrived after the call that set it: its notes and facts again.
          onChanged: () => {
            if (view !== undefined) report(view);
          },
        });
      } catch (error) {
        post({ kind: 'failed', problem: `WebGL could not start here (${error instanceof Error ? error.message : String(error)})` });
      }
      return;
    }
    case 'input':
      standIn.feed(message.input, message.box);
      // Where the operator left the camera, once a drag or a wheel step ends.
      if (view !== undefined && (message.input.type === 'pointerup' || message.input.type === 'wheel')) report(view);
      return;
    case 'dispose':
      view?.dispose();
      view = undefined;
      close();
      return;
    case 'call': {
      if (view === undefined) return;
      (view[message.method] as (...args: unknown[]) => void)(...message.args);
      if (REPORTING_METHODS.has(message.method)) report(view);
      return;
    }
  }
};
