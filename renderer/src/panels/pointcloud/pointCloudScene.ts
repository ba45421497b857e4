// The 3D view's scene: the latest cloud coloured by height, the robot at the origin, a ground grid,
// and an orbit camera. ROS frames are used as they are (x forward, y left, z up): the camera's up is
// +z. One geometry holds up to MAX_PREVIEW_POINTS points and is refilled in place for each cloud;
// a frame is drawn on the next animation frame only when something changed.
import {
  ArrowHelper,
  BufferAttribute,
  BufferGeometry,
  CylinderGeometry,
  DynamicDrawUsage,
  GridHelper,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  Points,
  PointsMaterial,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { MAX_PREVIEW_POINTS } from '../../lib/contract.ts';
import { heightColour } from './heightColours.ts';

const ROBOT_RADIUS_M = 0.175;
const ROBOT_HEIGHT_M = 0.2;
const GRID_SIZE_M = 16;
const BACKGROUND = 0x0b0d12;

export class PointCloudScene {
  readonly #renderer: WebGLRenderer;
  readonly #scene = new Scene();
  readonly #camera = new PerspectiveCamera(55, 1, 0.05, 200);
  readonly #controls: OrbitControls;
  readonly #geometry = new BufferGeometry();
  readonly #positions = new Float32Array(MAX_PREVIEW_POINTS * 3);
  readonly #colours = new Float32Array(MAX_PREVIEW_POINTS * 3);
  readonly #positionAttribute = new BufferAttribute(this.#positions, 3);
  readonly #colourAttribute = new BufferAttribute(this.#colours, 3);
  readonly #disposables: Array<{ dispose(): void }> = [];
  #frameRequest = 0;

  /** Throws when WebGL cannot start (no GPU and no software fallback): the panel says so instead. */
  constructor(canvas: HTMLCanvasElement) {
    this.#renderer = new WebGLRenderer({ canvas, antialias: false, powerPreference: 'low-power' });
    this.#renderer.setClearColor(BACKGROUND);
    this.#camera.up.set(0, 0, 1);
    this.#camera.position.set(-4, -3, 3.5);

    this.#positionAttribute.setUsage(DynamicDrawUsage);
    this.#colourAttribute.setUsage(DynamicDrawUsage);
    this.#geometry.setAttribute('position', this.#positionAttribute);
    this.#geometry.setAttribute('color', this.#colourAttribute);
    this.#geometry.setDrawRange(0, 0);
    const pointsMaterial = new PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true });
    const points = new Points(this.#geometry, pointsMaterial);
    // The cloud moves with the robot: its bounds are never computed, so it is never culled.
    points.frustumCulled = false;
    this.#scene.add(points);

    const grid = new GridHelper(GRID_SIZE_M, GRID_SIZE_M, 0x3a4050, 0x232733);
    grid.rotation.x = Math.PI / 2;
    this.#scene.add(grid);

    const bodyGeometry = new CylinderGeometry(ROBOT_RADIUS_M, ROBOT_RADIUS_M, ROBOT_HEIGHT_M, 24);
    const bodyMaterial = new MeshBasicMaterial({ color: 0xf2f4f8, transparent: true, opacity: 0.35 });
    const body = new Mesh(bodyGeometry, bodyMaterial);
    body.rotation.x = Math.PI / 2;
    body.position.z = ROBOT_HEIGHT_M / 2;
    this.#scene.add(body);
    const heading = new ArrowHelper(new Vector3(1, 0, 0), new Vector3(0, 0, ROBOT_HEIGHT_M), 0.5, 0xf2f4f8, 0.15, 0.1);
    this.#scene.add(heading);
    this.#disposables.push(this.#geometry, pointsMaterial, grid.geometry, bodyGeometry, bodyMaterial, heading);

    this.#controls = new OrbitControls(this.#camera, canvas);
    this.#controls.target.set(0, 0, 0.2);
    this.#controls.minDistance = 0.5;
    this.#controls.maxDistance = 60;
    // Orbiting never goes under the floor.
    this.#controls.maxPolarAngle = Math.PI / 2 - 0.02;
    this.#controls.update();
    this.#controls.addEventListener('change', this.#requestRender);
  }

  /** Copies the cloud (x, y, z per point, base_link) into the one geometry; points past the cap are left out. */
  setCloud(xyzM: Float32Array): void {
    const count = Math.min(MAX_PREVIEW_POINTS, Math.floor(xyzM.length / 3));
    const positions = this.#positions;
    const colours = this.#colours;
    for (let index = 0; index < count * 3; index += 3) {
      positions[index] = xyzM[index]!;
      positions[index + 1] = xyzM[index + 1]!;
      positions[index + 2] = xyzM[index + 2]!;
      heightColour(xyzM[index + 2]!, colours, index);
    }
    for (const attribute of [this.#positionAttribute, this.#colourAttribute]) {
      attribute.clearUpdateRanges();
      attribute.addUpdateRange(0, count * 3);
      attribute.needsUpdate = true;
    }
    this.#geometry.setDrawRange(0, count);
    this.#requestRender();
  }

  resize(widthPx: number, heightPx: number, pixelRatio: number): void {
    if (widthPx <= 0 || heightPx <= 0) return;
    this.#renderer.setPixelRatio(pixelRatio);
    this.#renderer.setSize(widthPx, heightPx, false);
    this.#camera.aspect = widthPx / heightPx;
    this.#camera.updateProjectionMatrix();
    // A resize clears the canvas: draw again at once rather than show a blank panel until the next frame.
    this.#renderer.render(this.#scene, this.#camera);
  }

  dispose(): void {
    if (this.#frameRequest !== 0) cancelAnimationFrame(this.#frameRequest);
    this.#frameRequest = 0;
    this.#controls.removeEventListener('change', this.#requestRender);
    this.#controls.dispose();
    for (const disposable of this.#disposables) disposable.dispose();
    this.#renderer.dispose();
  }

  readonly #requestRender = (): void => {
    if (this.#frameRequest !== 0) return;
    this.#frameRequest = requestAnimationFrame(() => {
      this.#frameRequest = 0;
      this.#renderer.render(this.#scene, this.#camera);
    });
  };
}
