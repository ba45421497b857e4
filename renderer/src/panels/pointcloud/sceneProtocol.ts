// What the page and the 3D view's worker (sceneWorker.ts) say to each other. The page sends the data
// the view draws (the SceneView calls, by name, with arguments the structured clone carries), the
// canvas's size and the operator's pointer and wheel input; the worker answers with clouds drawn, the
// view's notes and facts after each change of scene, model or map, and a failure to start.
import type { RobotFileAccess } from './robotMeshes.ts';
import type { SceneFacts, SceneView } from './sceneView.ts';

/** The SceneView calls the page forwards; each runs in the worker as it would on the page. */
export type ForwardedMethod = 'setCloud' | 'setScan' | 'setPredictedPath' | 'setScene' | 'setRobot' | 'setMap' | 'setDrawings' | 'resize';

export type ForwardedCall = { [M in ForwardedMethod]: { kind: 'call'; method: M; args: Parameters<SceneView[M]> } }[ForwardedMethod];

/** The fields of a pointer or wheel event that the orbit controls read. */
export interface ForwardedInput {
  type: 'pointerdown' | 'pointermove' | 'pointerup' | 'pointercancel' | 'wheel' | 'contextmenu';
  pointerId: number;
  pointerType: string;
  button: number;
  buttons: number;
  clientX: number;
  clientY: number;
  pageX: number;
  pageY: number;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  deltaX: number;
  deltaY: number;
  deltaZ: number;
  deltaMode: number;
}

/** Where the canvas is on the page (what getBoundingClientRect said), for zooming towards the cursor. */
export interface CanvasBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export type ToSceneWorker =
  | { kind: 'start'; canvas: OffscreenCanvas; box: CanvasBox; robotFiles?: RobotFileAccess }
  | ForwardedCall
  | { kind: 'input'; input: ForwardedInput; box: CanvasBox }
  | { kind: 'dispose' };

export type FromSceneWorker = { kind: 'drawn'; clouds: number } | { kind: 'report'; notes: string[]; facts: SceneFacts } | { kind: 'failed'; problem: string };

/** The calls after which the view's notes and facts may have changed. */
export const REPORTING_METHODS: ReadonlySet<ForwardedMethod> = new Set(['setScene', 'setRobot', 'setMap', 'setDrawings']);
