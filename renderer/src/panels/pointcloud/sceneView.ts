// The 3D view's scene, in the fixed frame the operator picked: every TF frame placed where the core
// says it is now, the robot model (URDF) on its root link's frame, the scan and the point cloud on the
// frames they are stamped in, the map on its frame, a ground grid, and an orbit camera that follows
// the robot. A frame the core cannot place (missing or stale transform) hides what hangs on it: the
// panel says why in words, nothing is drawn at the origin in its place. A robot with no TF at all
// (serial, or a ROS robot without /tf) is drawn as before: the cloud in its own frame around a
// placeholder body. ROS frames are used as they are (x forward, y left, z up): the camera's up is +z.
// Points geometries are refilled in place; a frame is drawn on the next animation frame only when
// something changed.
import {
  ArrowHelper,
  BufferAttribute,
  BufferGeometry,
  CylinderGeometry,
  DataTexture,
  DoubleSide,
  DynamicDrawUsage,
  GridHelper,
  Group,
  Line,
  LineBasicMaterial,
  Mesh,
  MeshBasicMaterial,
  NearestFilter,
  Object3D,
  PerspectiveCamera,
  PlaneGeometry,
  Points,
  PointsMaterial,
  RGBAFormat,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { URDFRobot } from 'urdf-loader';
import {
  MAX_PREVIEW_POINTS,
  type OccupancyGridFrame,
  type ScanFrame,
  type SceneDrawingsEvent,
  type SceneEvent,
  type SceneMap,
  type ScenePose,
} from '../../lib/contract.ts';
import { heightColour } from './heightColours.ts';
import { parseRobotModel } from './robotModel.ts';
import type { RobotFileAccess } from './robotMeshes.ts';
import { SceneMarkers } from './sceneMarkers.ts';

const ROBOT_RADIUS_M = 0.175;
const ROBOT_HEIGHT_M = 0.2;
const GRID_SIZE_M = 16;
const BACKGROUND = 0x0b0d12;
/** The most beams a scan draws (a 3,600-beam scan is still drawn in full). */
const MAX_SCAN_POINTS = 8192;
const SCAN_COLOUR = 0xff5c7a;
const PATH_COLOUR = 0xb083f0;
/** The most points of a predicted path drawn. */
const MAX_PATH_POINTS = 256;
/** The predicted path floats a little above the floor. */
const PATH_HEIGHT_M = 0.02;
/** New data is drawn at most this often (10 Hz): the sensors' own pace, one render for all of them. */
const MIN_DATA_RENDER_MS = 100;
/**
 * While clouds keep coming at least this often, other new data (scan, TF, paths, markers) waits for the
 * next cloud's render rather than having one of its own: a render costs about as much as its cloud
 * (20,000 points: ~20 ms of a software rasteriser's time, `reins bench ui`), so a view drawing
 * every cloud and the data besides rendered about twice as often as the clouds came.
 */
const CLOUD_RIDE_MS = 250;
/** The map sits just under the grid so the two never fight for the same pixels. */
const MAP_DEPTH_M = -0.005;

/** What the view draws now, for the panel's words and for tests (world matrices column-major, as three.js keeps them). */
export interface SceneFacts {
  /** Links in the robot model; 0 without one. */
  modelLinks: number;
  /** The model's meshes drawn from the robot's files (fetched through the core). */
  modelMeshes: number;
  /** Whether the model is drawn now (its root link placed). */
  modelShown: boolean;
  /** The drawn scan's world matrix, when a scan is drawn. */
  scanWorld: number[] | undefined;
  /** The model's link of the scan's frame (its world matrix), where the model has one. */
  scanLinkWorld: number[] | undefined;
  /** Cells of the map drawn; 0 without one. */
  mapCells: number;
  mapShown: boolean;
  /** Planned paths and markers drawn now (each on a frame the scene places). */
  drawnPaths: number;
  drawnMarkers: number;
  /** How far the orbit camera is from what it looks at (the operator zooms it). */
  orbitDistanceM: number;
}

/** What the view is given besides its canvas: where the robot's meshes come from, and who hears of a change that came later. */
export interface SceneViewOptions {
  /** The core's origin and token, for the robot's meshes; without them the meshes are left out with a note. */
  robotFiles?: RobotFileAccess;
  /** Told when the notes or facts changed outside a call (the model's meshes arrived), to report them again. */
  onChanged?: () => void;
  /**
   * Each new cloud is drawn as it comes, not on the next animation frame: in the view's worker, where
   * two clouds the page passed on together would otherwise meet in one frame and the first go undrawn
   * (a worker's canvas shows what a task drew once the task ends).
   */
  drawCloudsAtOnce?: boolean;
}

export class SceneView {
  readonly #renderer: WebGLRenderer;
  readonly #three = new Scene();
  readonly #camera = new PerspectiveCamera(55, 1, 0.05, 400);
  readonly #controls: OrbitControls;
  /** Everything in the fixed frame. */
  readonly #world = new Group();
  readonly #frames = new Map<string, Group>();
  readonly #cloud: PointBuffer;
  readonly #scan: PointBuffer;
  readonly #placeholder = new Group();
  readonly #path: Line;
  readonly #pathPositions = new Float32Array(MAX_PATH_POINTS * 3);
  readonly #disposables: Array<{ dispose(): void }> = [];
  /** The planned paths and markers, each on its frame's group (sceneMarkers.ts). */
  readonly #markers = new SceneMarkers((frame) => {
    const group = this.#frames.get(frame);
    return group?.visible ? group : undefined;
  });
  #robot: URDFRobot | undefined;
  #robotRoot = '';
  #robotRevision = -1;
  #robotNotes: string[] = [];
  #robotMeshes = 0;
  readonly #options: SceneViewOptions;
  #robotProblem: string | undefined;
  #map: { mesh: Mesh; texture: DataTexture; holder: Group; revision: number; cells: number } | undefined;
  #mapMeta: SceneMap | undefined;
  #event: SceneEvent | undefined;
  #followed: Vector3 | undefined;
  #frameRequest = 0;
  #urgent = false;
  /** A cloud was set since the last render; clouds drawn so far. */
  #cloudPending = false;
  #cloudsDrawn = 0;
  /** When a render last drew a new cloud. */
  #cloudRenderedAtMs = Number.NEGATIVE_INFINITY;
  readonly #onCloudsDrawn: (count: number) => void;
  #following = false;
  #renderedAtMs = Number.NEGATIVE_INFINITY;

  /**
   * Throws when WebGL cannot start (no GPU and no software fallback): the panel says so instead.
   * `canvas`: the page's canvas, or its OffscreenCanvas in the view's own worker (sceneWorker.ts);
   * `controlsElement`: what the orbit controls listen to (the canvas, or the worker's stand-in for it).
   * `onCloudsDrawn`: told, after each render that drew a new cloud, how many clouds have been drawn (for tests and benches).
   */
  constructor(
    canvas: HTMLCanvasElement | OffscreenCanvas,
    controlsElement: HTMLElement,
    onCloudsDrawn: (count: number) => void = () => {},
    options: SceneViewOptions = {},
  ) {
    this.#onCloudsDrawn = onCloudsDrawn;
    this.#options = options;
    this.#renderer = new WebGLRenderer({ canvas, antialias: false, powerPreference: 'low-power' });
    this.#renderer.setClearColor(BACKGROUND);
    this.#camera.up.set(0, 0, 1);
    this.#camera.position.set(-4, -3, 3.5);
    this.#three.add(this.#world);

    this.#cloud = new PointBuffer(MAX_PREVIEW_POINTS, new PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true }), true);
    this.#scan = new PointBuffer(MAX_SCAN_POINTS, new PointsMaterial({ size: 3, sizeAttenuation: false, color: SCAN_COLOUR }), false);
    this.#disposables.push(this.#cloud, this.#scan);

    const grid = new GridHelper(GRID_SIZE_M, GRID_SIZE_M, 0x3a4050, 0x232733);
    grid.rotation.x = Math.PI / 2;
    this.#world.add(grid);

    const bodyGeometry = new CylinderGeometry(ROBOT_RADIUS_M, ROBOT_RADIUS_M, ROBOT_HEIGHT_M, 24);
    const bodyMaterial = new MeshBasicMaterial({ color: 0xf2f4f8, transparent: true, opacity: 0.35 });
    const body = new Mesh(bodyGeometry, bodyMaterial);
    body.rotation.x = Math.PI / 2;
    body.position.z = ROBOT_HEIGHT_M / 2;
    const heading = new ArrowHelper(new Vector3(1, 0, 0), new Vector3(0, 0, ROBOT_HEIGHT_M), 0.5, 0xf2f4f8, 0.15, 0.1);
    this.#placeholder.add(body, heading);
    this.#disposables.push(grid.geometry, bodyGeometry, bodyMaterial, heading);

    const pathGeometry = new BufferGeometry();
    const pathAttribute = new BufferAttribute(this.#pathPositions, 3);
    pathAttribute.setUsage(DynamicDrawUsage);
    pathGeometry.setAttribute('position', pathAttribute);
    pathGeometry.setDrawRange(0, 0);
    const pathMaterial = new LineBasicMaterial({ color: PATH_COLOUR });
    this.#path = new Line(pathGeometry, pathMaterial);
    this.#path.frustumCulled = false;
    this.#disposables.push(pathGeometry, pathMaterial);
    this.#place();

    this.#controls = new OrbitControls(this.#camera, controlsElement);
    this.#controls.target.set(0, 0, 0.2);
    this.#controls.minDistance = 0.5;
    this.#controls.maxDistance = 120;
    // Orbiting never goes under the floor.
    this.#controls.maxPolarAngle = Math.PI / 2 - 0.02;
    this.#controls.update();
    this.#controls.addEventListener('change', this.#onOrbit);
  }

  /** Copies the cloud (x, y, z per point, in its own frame) into its geometry; points past the cap are left out. */
  setCloud(xyzM: Float32Array): void {
    this.#cloudPending = true;
    this.#cloud.fill(xyzM, Math.floor(xyzM.length / 3));
    // Every cloud is drawn (as it came, or the frame after); the other data rides along with it or waits its turn.
    if (this.#options.drawCloudsAtOnce) this.#render(performance.now());
    else this.#requestRender(true);
  }

  /** Draws the scan's hits (finite ranges under the range maximum) in the scan's frame. */
  setScan(scan: ScanFrame): void {
    const xyz = this.#scan.scratch;
    let count = 0;
    for (let beam = 0; beam < scan.rangesM.length && count < MAX_SCAN_POINTS; beam++) {
      const range = scan.rangesM[beam]!;
      if (!Number.isFinite(range) || range >= scan.rangeMaxM) continue;
      const angle = scan.angleMinRad + beam * scan.angleIncrementRad;
      xyz[count * 3] = range * Math.cos(angle);
      xyz[count * 3 + 1] = range * Math.sin(angle);
      xyz[count * 3 + 2] = 0;
      count++;
    }
    this.#scan.fill(xyz, count);
    this.#requestRender();
  }

  /** The world model's predicted path (x forward, y left, in the robot's frame, from the robot on); empty: none. */
  setPredictedPath(pointsM: ReadonlyArray<readonly [number, number]>): void {
    const count = Math.min(MAX_PATH_POINTS, pointsM.length);
    const geometry = this.#path.geometry;
    // No path before and none now: nothing to draw again (the status that carries it comes 10 times a second).
    if (count === 0 && geometry.drawRange.count === 0) return;
    for (let index = 0; index < count; index++) {
      this.#pathPositions[index * 3] = pointsM[index]![0];
      this.#pathPositions[index * 3 + 1] = pointsM[index]![1];
      this.#pathPositions[index * 3 + 2] = PATH_HEIGHT_M;
    }
    const attribute = geometry.getAttribute('position') as BufferAttribute;
    attribute.clearUpdateRanges();
    attribute.addUpdateRange(0, count * 3);
    attribute.needsUpdate = true;
    geometry.setDrawRange(0, count);
    this.#requestRender();
  }

  /** Places every frame the core placed; hides what hangs on a frame it could not. */
  setScene(event: SceneEvent): void {
    this.#event = event;
    const seen = new Set<string>();
    for (const frame of event.frames) {
      seen.add(frame.frame);
      const group = this.#frameGroup(frame.frame);
      group.visible = frame.pose !== undefined;
      if (frame.pose !== undefined) setPose(group, frame.pose);
    }
    // The fixed frame itself is at the identity, whether or not the tree lists it.
    if (!seen.has(event.fixedFrame)) {
      const fixed = this.#frameGroup(event.fixedFrame);
      fixed.visible = event.frames.length > 0;
      fixed.matrix.identity();
      seen.add(event.fixedFrame);
    }
    for (const [name, group] of this.#frames) {
      if (seen.has(name)) continue;
      this.#world.remove(group);
      this.#frames.delete(name);
    }
    this.#mapMeta = event.map;
    this.#place();
    this.#markers.place();
    this.#follow();
    this.#requestRender();
  }

  /**
   * The robot's model, once per revision; returns the notes on it (a problem, meshes left out).
   * `problem`: what the page's own XML parser found wrong with it (checkRobotXml), where the model is
   * built in the view's worker, whose XML parser forgives what the page's refuses.
   */
  setRobot(revision: number, source: string, urdf: string, problem?: string): void {
    if (revision === this.#robotRevision) return;
    this.#robotRevision = revision;
    this.#disposeRobot();
    const parsed = problem !== undefined ? ({ ok: false, problem } as const) : parseRobotModel(urdf, source, this.#options.robotFiles);
    this.#robotMeshes = 0;
    if (!parsed.ok) {
      this.#robotProblem = parsed.problem;
      this.#robotNotes = [];
    } else {
      this.#robot = parsed.robot;
      this.#robotRoot = parsed.rootLink;
      this.#robotNotes = parsed.notes;
      this.#robotProblem = undefined;
      // The meshes join the model as they arrive (a model replaced meanwhile is disposed, its meshes with it).
      void parsed.meshes?.then((loaded) => {
        if (this.#robot !== parsed.robot) return disposeTree(parsed.robot);
        this.#robotMeshes = loaded.drawn;
        this.#robotNotes = [...parsed.notes, ...loaded.notes];
        this.#requestRender();
        this.#options.onChanged?.();
      });
    }
    this.#place();
    this.#requestRender();
  }

  /** The map's cells (a revision the metadata names); drawn on its frame at its origin. */
  setMap(frame: OccupancyGridFrame): void {
    if (this.#map?.revision === frame.revision) return;
    this.#disposeMap();
    const rgba = new Uint8Array(frame.width * frame.height * 4);
    for (let cell = 0; cell < frame.cells.length; cell++) mapColour(frame.cells[cell]!, rgba, cell * 4);
    const texture = new DataTexture(rgba, frame.width, frame.height, RGBAFormat);
    texture.magFilter = NearestFilter;
    texture.minFilter = NearestFilter;
    texture.needsUpdate = true;
    const material = new MeshBasicMaterial({ map: texture, transparent: true, side: DoubleSide, depthWrite: false });
    const mesh = new Mesh(new PlaneGeometry(1, 1), material);
    const holder = new Group();
    holder.add(mesh);
    this.#map = { mesh, texture, holder, revision: frame.revision, cells: frame.width * frame.height };
    this.#place();
    this.#requestRender();
  }

  /** The planned paths and markers, whenever they change: built once each, hung on their frames. */
  setDrawings(event: SceneDrawingsEvent): void {
    this.#markers.set(event);
    this.#requestRender();
  }

  /** Words for the operator: what the view cannot draw and why. */
  notes(): string[] {
    const notes: string[] = [];
    if (this.#robotProblem !== undefined) notes.push(this.#robotProblem);
    notes.push(...this.#robotNotes);
    const event = this.#event;
    if (event === undefined) return notes;
    notes.push(...event.problems);
    const hanging = (what: string, frame: string | undefined): void => {
      if (frame === undefined || event.frames.length === 0) return;
      const known = event.frames.find((one) => one.frame === frame);
      if (frame === event.fixedFrame) return;
      if (known === undefined) notes.push(`${what} not drawn: TF has no frame ${frame}`);
      else if (known.pose === undefined) notes.push(`${what} not drawn: ${known.problem ?? `${frame} cannot be placed in ${event.fixedFrame}`}`);
    };
    if (this.#robot !== undefined) hanging('Robot model', this.#robotRoot);
    hanging('Scan', event.sensorFrames.scan);
    hanging('Point cloud', event.sensorFrames.points);
    if (event.map?.problem !== undefined) notes.push(`Map not drawn: ${event.map.problem}`);
    return notes;
  }

  facts(): SceneFacts {
    this.#three.updateMatrixWorld(true);
    const scanShown = this.#scan.points.parent !== null && visibleInWorld(this.#scan.points) && this.#scan.count > 0;
    const scanFrame = this.#event?.sensorFrames.scan;
    const link = scanFrame !== undefined ? this.#robot?.links[scanFrame] : undefined;
    const drawn = this.#markers.counts();
    return {
      modelLinks: this.#robot ? Object.keys(this.#robot.links).length : 0,
      modelMeshes: this.#robot ? this.#robotMeshes : 0,
      modelShown: this.#robot !== undefined && visibleInWorld(this.#robot),
      scanWorld: scanShown ? [...this.#scan.points.matrixWorld.elements] : undefined,
      scanLinkWorld: link !== undefined && this.#robot !== undefined && visibleInWorld(this.#robot) ? [...link.matrixWorld.elements] : undefined,
      mapCells: this.#map?.cells ?? 0,
      mapShown: this.#map !== undefined && this.#map.holder.parent !== null && visibleInWorld(this.#map.holder),
      drawnPaths: drawn.paths,
      drawnMarkers: drawn.markers,
      orbitDistanceM: this.#camera.position.distanceTo(this.#controls.target),
    };
  }

  resize(widthPx: number, heightPx: number, pixelRatio: number): void {
    if (widthPx <= 0 || heightPx <= 0) return;
    this.#renderer.setPixelRatio(pixelRatio);
    this.#renderer.setSize(widthPx, heightPx, false);
    this.#camera.aspect = widthPx / heightPx;
    this.#camera.updateProjectionMatrix();
    // A resize clears the canvas: draw again at once rather than show a blank panel until the next frame.
    this.#renderer.render(this.#three, this.#camera);
  }

  dispose(): void {
    if (this.#frameRequest !== 0) cancelAnimationFrame(this.#frameRequest);
    this.#frameRequest = 0;
    this.#controls.removeEventListener('change', this.#onOrbit);
    this.#controls.dispose();
    this.#disposeRobot();
    this.#disposeMap();
    this.#markers.dispose();
    for (const disposable of this.#disposables) disposable.dispose();
    this.#renderer.dispose();
  }

  /** Hangs the model, the sensors and the map on their frames (or, without TF, on the fixed frame itself). */
  #place(): void {
    const event = this.#event;
    const withTf = event !== undefined && event.frames.length > 0;
    const on = (frame: string | undefined, object: Object3D): void => {
      const parent = withTf && frame !== undefined ? this.#frameGroup(frame) : this.#world;
      if (object.parent !== parent) parent.add(object);
    };
    on(event?.sensorFrames.points, this.#cloud.points);
    on(event?.sensorFrames.scan, this.#scan.points);
    // The predicted path is in the robot's frame: its base, the model's root where there is a model.
    on(this.#robot !== undefined ? this.#robotRoot : 'base_link', this.#path);
    if (this.#robot !== undefined) {
      on(this.#robotRoot, this.#robot);
      this.#placeholder.removeFromParent();
    } else {
      on(withTf ? (event.frames.find((frame) => frame.frame === 'base_link')?.frame ?? event.fixedFrame) : undefined, this.#placeholder);
    }
    const map = this.#map;
    const meta = this.#mapMeta;
    if (map !== undefined && meta !== undefined && meta.width * meta.height === map.cells && meta.revision === map.revision) {
      on(meta.frame, map.holder);
      setPose(map.holder, meta.origin);
      const widthM = meta.width * meta.resolutionM;
      const heightM = meta.height * meta.resolutionM;
      map.mesh.scale.set(widthM, heightM, 1);
      map.mesh.position.set(widthM / 2, heightM / 2, MAP_DEPTH_M);
      map.holder.visible = meta.problem === undefined;
    } else if (map !== undefined) {
      map.holder.removeFromParent();
    }
  }

  /** The orbit camera keeps its angle and distance and moves with the robot's base. */
  #follow(): void {
    const root = this.#robot !== undefined ? this.#robotRoot : 'base_link';
    const group = this.#frames.get(root);
    if (group === undefined || !group.visible) return;
    const at = new Vector3().setFromMatrixPosition(group.matrix);
    if (this.#followed !== undefined) {
      const moved = at.clone().sub(this.#followed);
      this.#camera.position.add(moved);
      this.#controls.target.add(moved);
      this.#updateFollowing();
    } else {
      this.#controls.target.set(at.x, at.y, at.z + 0.2);
      this.#camera.position.set(at.x - 4, at.y - 3, at.z + 3.5);
      this.#updateFollowing();
    }
    this.#followed = at;
  }

  #updateFollowing(): void {
    this.#following = true;
    this.#controls.update();
    this.#following = false;
  }

  #frameGroup(name: string): Group {
    let group = this.#frames.get(name);
    if (group === undefined) {
      group = new Group();
      group.name = `frame:${name}`;
      group.matrixAutoUpdate = false;
      this.#frames.set(name, group);
      this.#world.add(group);
    }
    return group;
  }

  #disposeRobot(): void {
    const robot = this.#robot;
    if (robot === undefined) return;
    robot.removeFromParent();
    disposeTree(robot);
    this.#robot = undefined;
  }

  #disposeMap(): void {
    const map = this.#map;
    if (map === undefined) return;
    map.holder.removeFromParent();
    map.mesh.geometry.dispose();
    (map.mesh.material as MeshBasicMaterial).dispose();
    map.texture.dispose();
    this.#map = undefined;
  }

  /** The operator orbits or zooms: drawn at once (the view following the robot is drawn with the data). */
  readonly #onOrbit = (): void => this.#requestRender(!this.#following);

  /**
   * Draws on the next animation frame. A new cloud and the operator's orbiting and zooming
   * (`immediate`) are drawn on the very next frame; other new data (scan, TF, path: each about 10 Hz,
   * none in step) at most every MIN_DATA_RENDER_MS, so that one render serves them all, and while
   * clouds keep coming, with the next cloud (CLOUD_RIDE_MS).
   */
  readonly #requestRender = (immediate = false): void => {
    if (immediate) this.#urgent = true;
    if (this.#frameRequest !== 0) return;
    const onFrame = (frameMs: number): void => {
      const cloudsComing = frameMs - this.#cloudRenderedAtMs < CLOUD_RIDE_MS;
      if (!this.#urgent && (cloudsComing || frameMs - this.#renderedAtMs < MIN_DATA_RENDER_MS)) {
        this.#frameRequest = requestAnimationFrame(onFrame);
        return;
      }
      this.#frameRequest = 0;
      this.#render(frameMs);
    };
    this.#frameRequest = requestAnimationFrame(onFrame);
  };

  /** Draws now, and with it whatever waited for a render (the frame asked for is no longer needed). */
  #render(atMs: number): void {
    // This render draws whatever was waiting for one.
    if (this.#frameRequest !== 0) cancelAnimationFrame(this.#frameRequest);
    this.#frameRequest = 0;
    this.#urgent = false;
    this.#renderedAtMs = atMs;
    this.#renderer.render(this.#three, this.#camera);
    if (this.#cloudPending) {
      this.#cloudPending = false;
      this.#cloudRenderedAtMs = atMs;
      this.#onCloudsDrawn(++this.#cloudsDrawn);
    }
  }
}

/** One Points object over a fixed-size buffer, refilled in place. */
class PointBuffer {
  readonly points: Points;
  /** Room to build the next fill in (3 floats a point). */
  readonly scratch: Float32Array;
  count = 0;
  readonly #geometry = new BufferGeometry();
  readonly #positions: BufferAttribute;
  readonly #colours: BufferAttribute | undefined;
  readonly #material: PointsMaterial;

  constructor(capacity: number, material: PointsMaterial, coloured: boolean) {
    this.scratch = new Float32Array(capacity * 3);
    this.#positions = new BufferAttribute(new Float32Array(capacity * 3), 3);
    this.#positions.setUsage(DynamicDrawUsage);
    this.#geometry.setAttribute('position', this.#positions);
    if (coloured) {
      this.#colours = new BufferAttribute(new Float32Array(capacity * 3), 3);
      this.#colours.setUsage(DynamicDrawUsage);
      this.#geometry.setAttribute('color', this.#colours);
    }
    this.#geometry.setDrawRange(0, 0);
    this.#material = material;
    this.points = new Points(this.#geometry, material);
    // Points move with their frame: their bounds are never computed, so they are never culled.
    this.points.frustumCulled = false;
  }

  fill(xyzM: Float32Array, pointCount: number): void {
    const capacity = this.#positions.count;
    const count = Math.min(capacity, pointCount);
    const positions = this.#positions.array as Float32Array;
    positions.set(xyzM.subarray(0, count * 3));
    const colours = this.#colours?.array as Float32Array | undefined;
    if (colours !== undefined) for (let index = 0; index < count * 3; index += 3) heightColour(xyzM[index + 2]!, colours, index);
    for (const attribute of [this.#positions, this.#colours]) {
      if (attribute === undefined) continue;
      attribute.clearUpdateRanges();
      attribute.addUpdateRange(0, count * 3);
      attribute.needsUpdate = true;
    }
    this.#geometry.setDrawRange(0, count);
    this.count = count;
  }

  dispose(): void {
    this.#geometry.dispose();
    this.#material.dispose();
  }
}

function setPose(object: Object3D, pose: ScenePose): void {
  const [x, y, z] = pose.t;
  const [qx, qy, qz, qw] = pose.q;
  if (object.matrixAutoUpdate) {
    object.position.set(x, y, z);
    object.quaternion.set(qx, qy, qz, qw);
    return;
  }
  object.matrix.compose(new Vector3(x, y, z), object.quaternion.set(qx, qy, qz, qw), new Vector3(1, 1, 1));
  object.matrixWorldNeedsUpdate = true;
}

function disposeTree(root: Object3D): void {
  root.traverse((object) => {
    const mesh = object as Partial<Mesh>;
    mesh.geometry?.dispose();
    const material = mesh.material;
    if (Array.isArray(material)) for (const one of material) one.dispose();
    else material?.dispose();
  });
}

function visibleInWorld(object: Object3D): boolean {
  for (let at: Object3D | null = object; at !== null; at = at.parent) if (!at.visible) return false;
  return true;
}

/** OccupancyGrid colours: unknown clear, free dark, occupied light, in between by degree. */
function mapColour(value: number, rgba: Uint8Array, at: number): void {
  if (value < 0 || value > 100) {
    rgba[at + 3] = 0;
    return;
  }
  const amount = value / 100;
  rgba[at] = Math.round(0x1c + (0xd8 - 0x1c) * amount);
  rgba[at + 1] = Math.round(0x22 + (0xdd - 0x22) * amount);
  rgba[at + 2] = Math.round(0x2e + (0xe6 - 0x2e) * amount);
  rgba[at + 3] = 230;
}
