// Encoder inputs and training targets from labelled views of the simulated robot, prepared by the
// same functions the core uses at run time.
import type { ImagePreprocessing, ProprioPreprocessing, RangesPreprocessing } from '../../main/perception/manifest.ts';
import { PROPRIO_FIELDS } from '../../main/perception/manifest.ts';
import { prepareImage, prepareRanges, proprioValue, rangesInputSize } from '../../main/perception/preprocess.ts';
import { CAMERA_INPUT_PX, LIDAR_BINS } from '../../main/perception/defaultEncoders.ts';
import { DEFAULT_PREPROCESSING } from '../../main/perception/encoderSet.ts';
import type { HueSet } from '../../main/sim/palettes.ts';
import type { DockFramePose } from '../../main/sim/dockApproach.ts';
import { sampleCorridorViews, sampleDockViews } from '../../main/sim/taskViewSampler.ts';
import { sampleViews, type LabelledView } from '../../main/sim/viewSampler.ts';

export const CAMERA_PREPROCESSING: ImagePreprocessing = DEFAULT_PREPROCESSING.camera;
export const LIDAR_PREPROCESSING: RangesPreprocessing = DEFAULT_PREPROCESSING.lidar;

/** Sectors of the scan whose nearest return the LiDAR encoder learns to report (a summary of the scan). */
export const LIDAR_SECTORS = 36;

export interface Dataset {
  count: number;
  camera: Float32Array;
  lidar: Float32Array;
  /** Raw proprioception, one row of PROPRIO_FIELDS per view (normalised once its statistics are known). */
  proprioRaw: Float32Array;
  /** 1 for views of reach episodes: the goal's targets (in view, bearing, distance) apply only there. */
  reachView: Float32Array;
  goalInView: Float32Array;
  goalSin: Float32Array;
  goalCos: Float32Array;
  goalDistanceM: Float32Array;
  nearestObstacleM: Float32Array;
  linearMps: Float32Array;
  angularRadps: Float32Array;
  /** The largest horizontal acceleration the IMU read over the view's last tick (a shove's kick shows here). */
  peakAccelMps2: Float32Array;
  /** 1 where a shove struck in the view's last tick. */
  shoved: Float32Array;
  /** 1 for views of dock episodes, whose robot-in-dock-frame targets apply only there. */
  dockView: Float32Array;
  dockOutM: Float32Array;
  dockLeftM: Float32Array;
  dockHeadingRad: Float32Array;
  /** 1 for views of corridor episodes, whose clearance and offset from the centre line apply only there. */
  corridorView: Float32Array;
  corridorClearanceM: Float32Array;
  corridorLeftOfCentreM: Float32Array;
  /** Nearest normalised range per sector, from the prepared scan. */
  lidarSectors: Float32Array;
  /** For scoring: which arena and episode each view came from. */
  arenaSeeds: Int32Array;
}

export interface DatasetSpec {
  arenaSeeds: readonly number[];
  hues: HueSet | 'default';
  episodesPerArena: number;
  /** Reach views per episode. */
  viewsPerEpisode: number;
  seed: number;
  /** Dock and corridor episodes per arena, and views of each (none by default). */
  taskEpisodesPerArena?: number;
  dockViewsPerEpisode?: number;
  corridorViewsPerEpisode?: number;
  /** Share of views with a shove in their last tick (0 by default). */
  shoveChance?: number;
}

/** A view of any task, with the targets that apply to it; the others are left out. */
export interface TrainingView extends Pick<
  LabelledView,
  'arenaSeed' | 'image' | 'scan' | 'joints' | 'imu' | 'imuSinceLastTick' | 'jointsSinceLastTick' | 'shoved' | 'command'
> {
  nearestObstacleM: number;
  linearMps: number;
  angularRadps: number;
  goal?: { inView: boolean; bearingRad: number; distanceM: number };
  dock?: DockFramePose;
  corridor?: { clearanceM: number; leftOfCentreM: number };
}

export function viewCount(spec: DatasetSpec): number {
  const taskViews = (spec.dockViewsPerEpisode ?? 0) + (spec.corridorViewsPerEpisode ?? 0);
  return spec.arenaSeeds.length * (spec.episodesPerArena * spec.viewsPerEpisode + (spec.taskEpisodesPerArena ?? 0) * taskViews);
}

/** Per arena: its reach views, then its dock views, then its corridor views. */
export function* viewsOf(spec: DatasetSpec): Generator<TrainingView> {
  const taskEpisodes = spec.taskEpisodesPerArena ?? 0;
  for (const arenaSeed of spec.arenaSeeds) {
    const seed = spec.seed + arenaSeed;
    for (const { truth, ...view } of sampleViews({
      arenaSeed,
      hues: spec.hues,
      episodes: spec.episodesPerArena,
      viewsPerEpisode: spec.viewsPerEpisode,
      seed,
      shoveChance: spec.shoveChance ?? 0,
    })) {
      yield { ...view, ...truth, goal: { inView: truth.goalInView, bearingRad: truth.goalBearingRad, distanceM: truth.goalDistanceM } };
    }
    if (taskEpisodes > 0 && (spec.dockViewsPerEpisode ?? 0) > 0) {
      for (const { truth, ...view } of sampleDockViews({
        arenaSeed,
        hues: spec.hues,
        episodes: taskEpisodes,
        viewsPerEpisode: spec.dockViewsPerEpisode,
        seed,
        shoveChance: spec.shoveChance ?? 0,
      })) {
        yield { ...view, ...truth, dock: truth.inDock };
      }
    }
    if (taskEpisodes > 0 && (spec.corridorViewsPerEpisode ?? 0) > 0) {
      for (const { truth, ...view } of sampleCorridorViews({
        arenaSeed,
        hues: spec.hues,
        episodes: taskEpisodes,
        viewsPerEpisode: spec.corridorViewsPerEpisode,
        seed,
        shoveChance: spec.shoveChance ?? 0,
      })) {
        yield { ...view, ...truth, corridor: { clearanceM: truth.clearanceM, leftOfCentreM: truth.leftOfCentreM } };
      }
    }
  }
}

export function buildDataset(spec: DatasetSpec): Dataset {
  const count = viewCount(spec);
  const cameraSize = CAMERA_INPUT_PX.widthPx * CAMERA_INPUT_PX.heightPx * 3;
  const lidarSize = rangesInputSize(LIDAR_PREPROCESSING);
  const data: Dataset = {
    count,
    camera: new Float32Array(count * cameraSize),
    lidar: new Float32Array(count * lidarSize),
    proprioRaw: new Float32Array(count * PROPRIO_FIELDS.length),
    reachView: new Float32Array(count),
    goalInView: new Float32Array(count),
    goalSin: new Float32Array(count),
    goalCos: new Float32Array(count),
    goalDistanceM: new Float32Array(count),
    nearestObstacleM: new Float32Array(count),
    linearMps: new Float32Array(count),
    angularRadps: new Float32Array(count),
    peakAccelMps2: new Float32Array(count),
    shoved: new Float32Array(count),
    dockView: new Float32Array(count),
    dockOutM: new Float32Array(count),
    dockLeftM: new Float32Array(count),
    dockHeadingRad: new Float32Array(count),
    corridorView: new Float32Array(count),
    corridorClearanceM: new Float32Array(count),
    corridorLeftOfCentreM: new Float32Array(count),
    lidarSectors: new Float32Array(count * LIDAR_SECTORS),
    arenaSeeds: new Int32Array(count),
  };
  let i = 0;
  for (const view of viewsOf(spec)) {
    prepareImage(view.image, CAMERA_PREPROCESSING, data.camera.subarray(i * cameraSize, (i + 1) * cameraSize));
    const ranges = data.lidar.subarray(i * lidarSize, (i + 1) * lidarSize);
    prepareRanges(view.scan, LIDAR_PREPROCESSING, ranges);
    PROPRIO_FIELDS.forEach((field, f) => {
      data.proprioRaw[i * PROPRIO_FIELDS.length + f] = proprioValue(field, view);
    });
    const binsPerSector = LIDAR_BINS / LIDAR_SECTORS;
    for (let s = 0; s < LIDAR_SECTORS; s++) {
      let nearest = 1;
      for (let b = s * binsPerSector; b < (s + 1) * binsPerSector; b++) nearest = Math.min(nearest, ranges[b]!);
      data.lidarSectors[i * LIDAR_SECTORS + s] = nearest;
    }
    const { goal, dock, corridor } = view;
    if (goal) {
      data.reachView[i] = 1;
      data.goalInView[i] = goal.inView ? 1 : 0;
      data.goalSin[i] = Math.sin(goal.bearingRad);
      data.goalCos[i] = Math.cos(goal.bearingRad);
      data.goalDistanceM[i] = goal.distanceM;
    }
    if (dock) {
      data.dockView[i] = 1;
      data.dockOutM[i] = dock.outM;
      data.dockLeftM[i] = dock.leftM;
      data.dockHeadingRad[i] = dock.headingErrorRad;
    }
    if (corridor) {
      data.corridorView[i] = 1;
      data.corridorClearanceM[i] = corridor.clearanceM;
      data.corridorLeftOfCentreM[i] = corridor.leftOfCentreM;
    }
    data.nearestObstacleM[i] = view.nearestObstacleM;
    data.linearMps[i] = view.linearMps;
    data.angularRadps[i] = view.angularRadps;
    data.peakAccelMps2[i] = Math.max(
      0,
      ...(view.imuSinceLastTick.length > 0 ? view.imuSinceLastTick : [view.imu]).map((imu) =>
        Math.hypot(imu.linearAccelerationMps2.x, imu.linearAccelerationMps2.y),
      ),
    );
    data.shoved[i] = view.shoved ? 1 : 0;
    data.arenaSeeds[i] = view.arenaSeed;
    i++;
  }
  return data;
}

/** Per-field mean and spread of the raw proprioception, for the manifest. */
export function proprioStatistics(data: Dataset): ProprioPreprocessing {
  const fields = [...PROPRIO_FIELDS];
  const mean = fields.map((_, f) => {
    let sum = 0;
    for (let i = 0; i < data.count; i++) sum += data.proprioRaw[i * fields.length + f]!;
    return sum / data.count;
  });
  const std = fields.map((_, f) => {
    let sum = 0;
    for (let i = 0; i < data.count; i++) sum += (data.proprioRaw[i * fields.length + f]! - mean[f]!) ** 2;
    return Math.max(1e-3, Math.sqrt(sum / data.count));
  });
  return { kind: 'proprio', fields, mean, std };
}

/** Normalised proprioception rows, as the core prepares them. */
export function normalisedProprio(data: Dataset, spec: ProprioPreprocessing): Float32Array {
  const width = spec.fields.length;
  const out = new Float32Array(data.count * width);
  for (let i = 0; i < data.count; i++) {
    for (let f = 0; f < width; f++) out[i * width + f] = (data.proprioRaw[i * width + f]! - spec.mean[f]!) / spec.std[f]!;
  }
  return out;
}
