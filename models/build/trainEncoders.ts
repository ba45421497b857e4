// Trains the three default encoders together on views of the simulated robot, with the sim's ground
// truth as auxiliary targets read out by linear heads (so the embedding holds them linearly):
// camera → is the goal in view, its bearing and distance, the nearest obstacle, and on dock views the
// robot's pose in the dock's frame; LiDAR → the nearest obstacle and the scan's sector minima, and on
// corridor views the clearance and the offset from the centre line; proprioception → the robot's
// speed and turn rate, and the largest acceleration over the last tick (a shove's kick; issue 30). A task's targets are masked out on the other tasks' views.
import type { Modality } from '../../main/core/perception.ts';
import * as tf from '@tensorflow/tfjs';
import { DEFAULT_ENCODER_SHAPES, DEFAULT_SLOTS, randomlyInitialised } from '../../main/perception/defaultEncoders.ts';
import type { SequentialNet } from '../../main/perception/sequentialOnnx.ts';
import { LIDAR_SECTORS, type Dataset } from './dataset.ts';
import { TfSequential } from './tfSequential.ts';

export interface TrainingOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  seed: number;
  log: (line: string) => void;
}

/** Goal in view, bearing (sine, cosine), distance, nearest obstacle; the dock's forward, lateral and heading. */
const CAMERA_TARGETS = 8;
/** Nearest obstacle, sector minima; the corridor's clearance and offset. */
const LIDAR_TARGETS = 1 + LIDAR_SECTORS + 2;
/** Speed, turn rate, log(1 + peak acceleration). */
const PROPRIO_TARGETS = 3;

export interface TrainedEncoders {
  nets: Record<Modality, SequentialNet>;
  /** Runs the encoders as trained (TensorFlow.js) on prepared inputs: the reference the ONNX files are checked against. */
  reference: Record<Modality, TfSequential>;
}

/** Adam whose step size can follow a schedule. */
class ScheduledAdam extends tf.AdamOptimizer {
  get rate(): number {
    return this.learningRate;
  }

  set rate(value: number) {
    this.learningRate = value;
  }
}

function head(inputs: number, outputs: number, seed: number): { weights: tf.Variable; bias: tf.Variable } {
  const init = randomlyInitialised(
    { inputName: 'x', outputName: 'y', inputShape: [inputs], layers: [{ kind: 'dense', inSize: inputs, outSize: outputs }] },
    seed,
  );
  const layer = init.layers[0]!;
  if (layer.kind !== 'dense') throw new Error('head must be dense');
  return { weights: tf.variable(tf.tensor2d(layer.weights, [inputs, outputs]).mul(0.5)), bias: tf.variable(tf.zeros([outputs])) };
}

function gather(source: Float32Array, width: number, indices: Int32Array | number[]): Float32Array {
  const out = new Float32Array(indices.length * width);
  for (let i = 0; i < indices.length; i++) out.set(source.subarray(indices[i]! * width, (indices[i]! + 1) * width), i * width);
  return out;
}

function shuffled(count: number, seed: number): Int32Array {
  const order = Int32Array.from({ length: count }, (_, i) => i);
  let state = seed >>> 0;
  for (let i = count - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** (value − mean) / std, with mean and std taken over the views where `where` is 1 (all by default). */
function standardised(column: Float32Array, where?: Float32Array): Float32Array {
  let count = 0;
  let sum = 0;
  let squares = 0;
  column.forEach((value, i) => {
    if (where && where[i] !== 1) return;
    count++;
    sum += value;
    squares += value * value;
  });
  const mean = sum / Math.max(1, count);
  const std = Math.sqrt(Math.max(1e-12, squares / Math.max(1, count) - mean * mean));
  return column.map((value) => (value - mean) / std);
}

function standardisedColumns(rows: Float32Array, width: number): Float32Array {
  const out = new Float32Array(rows.length);
  for (let c = 0; c < width; c++) {
    const column = standardised(rows.filter((_, i) => i % width === c));
    column.forEach((value, r) => {
      out[r * width + c] = value;
    });
  }
  return out;
}

/** Columns side by side: row i holds each column's value i. */
function interleave(...columns: Float32Array[]): Float32Array {
  const width = columns.length;
  const out = new Float32Array(columns[0]!.length * width);
  columns.forEach((column, c) => column.forEach((value, i) => (out[i * width + c] = value)));
  return out;
}

export function trainEncoders(data: Dataset, proprio: Float32Array, options: TrainingOptions): TrainedEncoders {
  const camera = new TfSequential(randomlyInitialised(DEFAULT_ENCODER_SHAPES.camera, options.seed));
  const lidar = new TfSequential(randomlyInitialised(DEFAULT_ENCODER_SHAPES.lidar, options.seed + 1));
  const proprioNet = new TfSequential(randomlyInitialised(DEFAULT_ENCODER_SHAPES.proprio, options.seed + 2));
  const cameraShape = DEFAULT_ENCODER_SHAPES.camera.inputShape;
  const cameraSize = cameraShape.reduce((a, b) => a * b, 1);
  const lidarSize = DEFAULT_ENCODER_SHAPES.lidar.inputShape[0]!;
  const proprioSize = DEFAULT_ENCODER_SHAPES.proprio.inputShape[0]!;
  const cameraHead = head(DEFAULT_SLOTS.camera, CAMERA_TARGETS, options.seed + 3);
  const lidarHead = head(DEFAULT_SLOTS.lidar, LIDAR_TARGETS, options.seed + 4);
  const proprioHead = head(DEFAULT_SLOTS.proprio, PROPRIO_TARGETS, options.seed + 5);
  const optimizer = new ScheduledAdam(options.learningRate, 0.9, 0.999);
  const batches = Math.ceil(data.count / options.batchSize);

  // Every regression target is standardised (over the views where it applies), so each one weighs in
  // the loss by how much of its variance is left unexplained, whatever its units.
  const goalSin = standardised(data.goalSin, data.goalInView);
  const goalCos = standardised(data.goalCos, data.goalInView);
  const goalDistance = standardised(data.goalDistanceM, data.goalInView);
  const obstacle = standardised(data.nearestObstacleM);
  const dockOut = standardised(data.dockOutM, data.dockView);
  const dockLeft = standardised(data.dockLeftM, data.dockView);
  const dockHeading = standardised(data.dockHeadingRad, data.dockView);
  const corridorClearance = standardised(data.corridorClearanceM, data.corridorView);
  const corridorOffset = standardised(data.corridorLeftOfCentreM, data.corridorView);
  const sectors = standardisedColumns(data.lidarSectors, LIDAR_SECTORS);
  const speeds = standardisedColumns(
    interleave(
      data.linearMps,
      data.angularRadps,
      data.peakAccelMps2.map((peak) => Math.log1p(peak)),
    ),
    PROPRIO_TARGETS,
  );

  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = shuffled(data.count, options.seed * 7919 + epoch);
    const startedMs = performance.now();
    let lossSum = 0;
    // Step the learning rate down over the last epochs (a simple cosine schedule).
    optimizer.rate = options.learningRate * (0.55 + 0.45 * Math.cos((Math.PI * epoch) / options.epochs));
    for (let b = 0; b < batches; b++) {
      const indices = order.subarray(b * options.batchSize, (b + 1) * options.batchSize);
      const n = indices.length;
      const picked = (column: Float32Array) => tf.tensor1d(gather(column, 1, indices));
      const loss = tf.tidy(() => {
        const cameraX = tf.tensor4d(gather(data.camera, cameraSize, indices), [n, ...(cameraShape as [number, number, number])]);
        const lidarX = tf.tensor2d(gather(data.lidar, lidarSize, indices), [n, lidarSize]);
        const proprioX = tf.tensor2d(gather(proprio, proprioSize, indices), [n, proprioSize]);
        const inView = picked(data.goalInView);
        const isReach = picked(data.reachView).reshape([n, 1]);
        const isDock = picked(data.dockView).reshape([n, 1]);
        const isCorridor = picked(data.corridorView).reshape([n, 1]);
        const dockTargets = tf.stack([picked(dockOut), picked(dockLeft), picked(dockHeading)], 1);
        const corridorTargets = tf.stack([picked(corridorClearance), picked(corridorOffset)], 1);
        const goalTargets = tf.stack([picked(goalSin), picked(goalCos), picked(goalDistance)], 1);
        const obstacleTarget = picked(obstacle).reshape([n, 1]);
        const sectorTargets = tf.tensor2d(gather(sectors, LIDAR_SECTORS, indices), [n, LIDAR_SECTORS]);
        const speedTargets = tf.tensor2d(gather(speeds, PROPRIO_TARGETS, indices), [n, PROPRIO_TARGETS]);
        const inViewCount = tf.maximum(inView.sum(), 1);
        /** Mean squared error over the views where `mask` is 1 (zero when there are none). */
        const maskedError = (predicted: tf.Tensor, targets: tf.Tensor, mask: tf.Tensor, width: number) =>
          tf.div(tf.sum(tf.mul(tf.square(tf.sub(predicted, targets)), mask)), tf.maximum(mask.sum(), 1).mul(width));
        return optimizer.minimize(() => {
          const cameraOut = tf.add(tf.matMul(camera.apply(cameraX), cameraHead.weights), cameraHead.bias);
          const visibility = tf.div(
            tf.sum(tf.losses.sigmoidCrossEntropy(inView.reshape([n, 1]), cameraOut.slice([0, 0], [n, 1]), isReach, 0, tf.Reduction.NONE)),
            tf.maximum(isReach.sum(), 1),
          );
          const goalError = tf.square(tf.sub(cameraOut.slice([0, 1], [n, 3]), goalTargets));
          const goalLoss = tf.div(tf.sum(tf.mul(goalError, inView.reshape([n, 1]))), inViewCount.mul(3));
          const cameraObstacle = tf.losses.meanSquaredError(obstacleTarget, cameraOut.slice([0, 4], [n, 1]));
          const dockLoss = maskedError(cameraOut.slice([0, 5], [n, 3]), dockTargets, isDock, 3);
          const lidarOut = tf.add(tf.matMul(lidar.apply(lidarX), lidarHead.weights), lidarHead.bias);
          const lidarObstacle = tf.losses.meanSquaredError(obstacleTarget, lidarOut.slice([0, 0], [n, 1]));
          const lidarSectors = tf.losses.meanSquaredError(sectorTargets, lidarOut.slice([0, 1], [n, LIDAR_SECTORS]));
          const corridorLoss = maskedError(lidarOut.slice([0, 1 + LIDAR_SECTORS], [n, 2]), corridorTargets, isCorridor, 2);
          const proprioOut = tf.add(tf.matMul(proprioNet.apply(proprioX), proprioHead.weights), proprioHead.bias);
          const proprioLoss = tf.losses.meanSquaredError(speedTargets, proprioOut);
          return tf.addN([
            visibility,
            goalLoss.mul(2),
            cameraObstacle.mul(0.5),
            // The dock's lateral offset is what a plain encoder missed (issue 26): weighted above the goal's.
            dockLoss.mul(3),
            lidarObstacle.mul(4),
            lidarSectors,
            corridorLoss,
            proprioLoss,
          ]) as tf.Scalar;
        }, true) as tf.Scalar;
      });
      lossSum += loss.dataSync()[0]!;
      loss.dispose();
    }
    options.log(
      `epoch ${epoch + 1}/${options.epochs}: loss ${(lossSum / batches).toFixed(4)} (${((performance.now() - startedMs) / 1000).toFixed(0)} s, learning rate ${optimizer.rate.toExponential(2)})`,
    );
  }
  return {
    nets: { camera: camera.toNet(), lidar: lidar.toNet(), proprio: proprioNet.toNet() },
    reference: { camera, lidar, proprio: proprioNet },
  };
}
