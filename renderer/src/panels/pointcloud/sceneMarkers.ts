// The robot's planned paths and markers in the 3D view: each shape the core checked and sent
// (SceneDrawingsEvent) built into three.js objects once per version, and hung on the group of the TF
// frame it names. A shape whose frame the scene does not place now (missing, stale, another tree) is
// taken out of the scene, never left at the origin; the core says why in words. Nothing here runs
// per animation frame: building happens when the drawings change, hanging when the scene does.
import {
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  CanvasTexture,
  Color,
  ConeGeometry,
  CylinderGeometry,
  DoubleSide,
  Group,
  InstancedMesh,
  Line,
  LineBasicMaterial,
  LineSegments,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Object3D,
  Points,
  PointsMaterial,
  Quaternion,
  SphereGeometry,
  Sprite,
  SpriteMaterial,
  Vector3,
  type Material,
} from 'three';
import type { SceneDrawingsEvent, SceneShape } from '../../lib/contract.ts';

/** A label's texture is this many pixels high; its width follows the text. */
const LABEL_PX = 64;
/** A path floats this far above its points, so that it shows over a map on the same floor. */
const PATH_LIFT_M = 0.02;
/** An arrow given by its pose alone: its head takes this share of its length. */
const ARROW_HEAD_SHARE = 0.23;

interface Built {
  version: number;
  kind: SceneShape['kind'];
  frame: string;
  object: Object3D;
  disposables: Array<{ dispose(): void }>;
}

export interface DrawingCounts {
  /** Paths hung on a frame the scene places now. */
  paths: number;
  /** Markers likewise. */
  markers: number;
}

export class SceneMarkers {
  readonly #built = new Map<string, Built>();
  /** Unit shapes shared by every marker, scaled per marker. */
  readonly #box = new BoxGeometry(1, 1, 1);
  readonly #sphere = new SphereGeometry(0.5, 16, 12);
  /** three.js's cylinder stands along y; ROS's along z. */
  readonly #cylinder = new CylinderGeometry(0.5, 0.5, 1, 20).rotateX(Math.PI / 2);
  /** A unit shaft and head along +x, from the origin. */
  readonly #shaft = new CylinderGeometry(0.5, 0.5, 1, 12).rotateZ(-Math.PI / 2).translate(0.5, 0, 0);
  readonly #head = new ConeGeometry(0.5, 1, 12).rotateZ(-Math.PI / 2).translate(0.5, 0, 0);

  /** `frameGroup`: the group of a frame the scene places now, or undefined (then what hangs on it is not drawn). */
  constructor(private readonly frameGroup: (frame: string) => Object3D | undefined) {}

  /** The shapes now: new or changed ones built, gone ones disposed. */
  set(event: SceneDrawingsEvent): void {
    const seen = new Set<string>();
    for (const shape of event.shapes) {
      seen.add(shape.key);
      const old = this.#built.get(shape.key);
      if (old?.version === shape.version) continue;
      if (old !== undefined) this.#dispose(old);
      this.#built.set(shape.key, this.#build(shape));
    }
    for (const [key, built] of this.#built) {
      if (seen.has(key)) continue;
      this.#dispose(built);
      this.#built.delete(key);
    }
    this.place();
  }

  /** Hangs every shape on its frame's group, or takes it out where the scene does not place its frame. */
  place(): void {
    for (const built of this.#built.values()) {
      const group = this.frameGroup(built.frame);
      if (group === undefined) built.object.removeFromParent();
      else if (built.object.parent !== group) group.add(built.object);
    }
  }

  counts(): DrawingCounts {
    let paths = 0;
    let markers = 0;
    for (const built of this.#built.values()) {
      if (built.object.parent === null || !built.object.parent.visible) continue;
      if (built.kind === 'path') paths++;
      else markers++;
    }
    return { paths, markers };
  }

  dispose(): void {
    for (const built of this.#built.values()) this.#dispose(built);
    this.#built.clear();
    for (const geometry of [this.#box, this.#sphere, this.#cylinder, this.#shaft, this.#head]) geometry.dispose();
  }

  #dispose(built: Built): void {
    built.object.removeFromParent();
    for (const disposable of built.disposables) disposable.dispose();
  }

  #build(shape: SceneShape): Built {
    const disposables: Array<{ dispose(): void }> = [];
    const holder = new Group();
    holder.name = `drawing:${shape.key}`;
    holder.position.set(...shape.pose.t);
    holder.quaternion.set(...shape.pose.q);
    const object = this.#shapeObject(shape, disposables);
    if (object !== undefined) holder.add(object);
    return { version: shape.version, kind: shape.kind, frame: shape.frame, object: holder, disposables };
  }

  #shapeObject(shape: SceneShape, disposables: Array<{ dispose(): void }>): Object3D | undefined {
    const [r, g, b, a] = shape.colour;
    const [sx, sy, sz] = shape.scale;
    const material = <M extends Material>(made: M): M => {
      made.transparent = a < 1;
      made.opacity = a;
      disposables.push(made);
      return made;
    };
    const solid = () => material(new MeshBasicMaterial({ color: new Color(r, g, b) }));
    const scaled = (mesh: Mesh): Mesh => {
      mesh.scale.set(sx, sy, sz);
      return mesh;
    };
    const points = shape.pointsM ?? [];
    switch (shape.kind) {
      case 'cube':
        return scaled(new Mesh(this.#box, solid()));
      case 'sphere':
        return scaled(new Mesh(this.#sphere, solid()));
      case 'cylinder':
        return scaled(new Mesh(this.#cylinder, solid()));
      case 'arrow':
        return this.#arrow(shape, solid());
      case 'path':
      case 'line-strip':
      case 'line-list': {
        const geometry = lineGeometry(points, shape.colours);
        disposables.push(geometry);
        const lineMaterial = material(new LineBasicMaterial({ color: new Color(r, g, b), vertexColors: shape.colours !== undefined }));
        const line = shape.kind === 'line-list' ? new LineSegments(geometry, lineMaterial) : new Line(geometry, lineMaterial);
        line.frustumCulled = false;
        if (shape.kind === 'path') line.position.z = PATH_LIFT_M;
        return line;
      }
      case 'points': {
        const geometry = lineGeometry(points, shape.colours);
        disposables.push(geometry);
        const made = new Points(
          geometry,
          material(new PointsMaterial({ color: new Color(r, g, b), size: Math.max(sx, sy), vertexColors: shape.colours !== undefined })),
        );
        made.frustumCulled = false;
        return made;
      }
      case 'cube-list':
      case 'sphere-list': {
        const count = points.length / 3;
        const instances = new InstancedMesh(shape.kind === 'cube-list' ? this.#box : this.#sphere, solid(), count);
        const matrix = new Matrix4();
        const rotation = new Quaternion();
        const size = new Vector3(sx, sy, sz);
        const at = new Vector3();
        const colour = new Color();
        for (let index = 0; index < count; index++) {
          instances.setMatrixAt(index, matrix.compose(at.set(points[index * 3]!, points[index * 3 + 1]!, points[index * 3 + 2]!), rotation, size));
          const colours = shape.colours;
          if (colours !== undefined) instances.setColorAt(index, colour.setRGB(colours[index * 4]!, colours[index * 4 + 1]!, colours[index * 4 + 2]!));
        }
        instances.frustumCulled = false;
        disposables.push(instances);
        return instances;
      }
      case 'triangle-list': {
        const geometry = lineGeometry(points, shape.colours);
        disposables.push(geometry);
        return new Mesh(geometry, material(new MeshBasicMaterial({ color: new Color(r, g, b), side: DoubleSide, vertexColors: shape.colours !== undefined })));
      }
      case 'text':
        return this.#label(shape.text ?? '', sz, shape.colour, disposables);
    }
  }

  /** An arrow from its pose along x (length, width, height), or from its first point to its second (shaft and head diameter, head length). */
  #arrow(shape: SceneShape, material: MeshBasicMaterial): Object3D {
    const [sx, sy, sz] = shape.scale;
    const arrow = new Group();
    const shaft = new Mesh(this.#shaft, material);
    const head = new Mesh(this.#head, material);
    arrow.add(shaft, head);
    const points = shape.pointsM;
    if (points === undefined || points.length < 6) {
      const headLength = sx * ARROW_HEAD_SHARE;
      shaft.scale.set(sx - headLength, sy / 2, sz / 2);
      head.scale.set(headLength, sy, sz);
      head.position.x = sx - headLength;
      return arrow;
    }
    const start = new Vector3(points[0], points[1], points[2]);
    const towards = new Vector3(points[3], points[4], points[5]).sub(start);
    const length = towards.length();
    const headLength = Math.min(length, sz > 0 ? sz : length * ARROW_HEAD_SHARE);
    shaft.scale.set(Math.max(0, length - headLength), sx, sx);
    head.scale.set(headLength, sy, sy);
    head.position.x = length - headLength;
    arrow.position.copy(start);
    if (length > 0) arrow.quaternion.setFromUnitVectors(new Vector3(1, 0, 0), towards.normalize());
    return arrow;
  }

  /** TEXT_VIEW_FACING: a label that always faces the camera, `heightM` tall. */
  #label(text: string, heightM: number, colour: SceneShape['colour'], disposables: Array<{ dispose(): void }>): Object3D | undefined {
    // OffscreenCanvas: the view may run in a worker, which has no document.
    if (typeof OffscreenCanvas !== 'function' || text === '') return undefined;
    const font = `${Math.round(LABEL_PX * 0.8)}px sans-serif`;
    const measure = new OffscreenCanvas(1, 1).getContext('2d');
    if (measure === null) return undefined;
    measure.font = font;
    const widthPx = Math.max(1, Math.ceil(measure.measureText(text).width) + 8);
    const canvas = new OffscreenCanvas(widthPx, LABEL_PX);
    const context = canvas.getContext('2d');
    if (context === null) return undefined;
    context.font = font;
    context.textBaseline = 'middle';
    context.fillStyle = `rgba(${colour
      .slice(0, 3)
      .map((channel) => Math.round(channel * 255))
      .join(', ')}, ${colour[3]})`;
    context.fillText(text, 4, LABEL_PX / 2);
    const texture = new CanvasTexture(canvas);
    const material = new SpriteMaterial({ map: texture, transparent: true, depthWrite: false });
    disposables.push(texture, material);
    const sprite = new Sprite(material);
    sprite.scale.set((heightM * widthPx) / LABEL_PX, heightM, 1);
    return sprite;
  }
}

/** Positions (and colours, RGB of the RGBA given per point) as a geometry. */
function lineGeometry(pointsM: readonly number[], colours: readonly number[] | undefined): BufferGeometry {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(Float32Array.from(pointsM), 3));
  if (colours !== undefined) {
    const rgb = new Float32Array((colours.length / 4) * 3);
    for (let index = 0; index < colours.length / 4; index++) rgb.set([colours[index * 4]!, colours[index * 4 + 1]!, colours[index * 4 + 2]!], index * 3);
    geometry.setAttribute('color', new BufferAttribute(rgb, 3));
  }
  return geometry;
}
