// The perception the core runs, on real ONNX files written to a temporary folder: frames in, one
// fused embedding out; a missing stream or a bad encoder costs only its own modality, and says so.
import type { ObservationFrame, StreamRole } from '../core/frame.ts';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Image, Imu, JointState, LaserScan } from '../core/messages.ts';
import { DEFAULT_ENCODER_SHAPES, randomlyInitialised } from './defaultEncoders.ts';
import { writeEncoderSet, writeRandomEncoderSet } from './encoderSet.ts';
import { REPEATED_CHANGE } from './liveness.ts';
import { loadPerception, type OnnxPerception } from './onnxPerception.ts';
import { sequentialToOnnx, type SequentialNet } from './sequentialOnnx.ts';

const root = mkdtempSync(join(tmpdir(), 'reins-perception-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const loaded: OnnxPerception[] = [];
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((perception) => perception.close()));
});

async function load(manifestPath: string): Promise<OnnxPerception> {
  const perception = await loadPerception(manifestPath, { provider: 'cpu' });
  loaded.push(perception);
  return perception;
}

type ManifestJson = { version: string; encoders: Record<string, { file: string; sha256: string; input: { shape: number[] } }> };

/** The default-shaped random encoders in a fresh folder, the manifest changed by `tweak` (and the folder). */
function encoderSet(tweak: (manifest: ManifestJson, folder: string) => void = () => undefined): string {
  const folder = join(root, `set-${folders++}`);
  const path = writeRandomEncoderSet(folder, 21, 'test-encoders-1');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as ManifestJson;
  tweak(manifest, folder);
  writeFileSync(path, JSON.stringify(manifest));
  return path;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Writes one network as ONNX and returns the file's path. */
function writeNet(name: string, net: SequentialNet): string {
  const path = join(root, `${name}.onnx`);
  writeFileSync(path, sequentialToOnnx(net, 'test'));
  return path;
}

beforeAll(() => {
  // A camera encoder for 96×128 images, where the manifest prepares 48×64.
  const camera = DEFAULT_ENCODER_SHAPES.camera;
  const bigger = camera.layers.map((layer) => (layer.kind === 'dense' ? { ...layer, inSize: 6 * 8 * 96 } : layer));
  writeNet('camera-96x128', randomlyInitialised({ ...camera, inputShape: [96, 128, 3], layers: bigger }, 1));
  // A camera encoder with a NaN among its weights.
  const nan = randomlyInitialised(camera, 2);
  const conv = nan.layers[0]!;
  if (conv.kind === 'patch-conv') conv.weights[0] = Number.NaN;
  writeNet('camera-nan', nan);
});

// ── Frames ──────────────────────────────────────────────────────────────────────────────────────

function cameraImage(shade: number): Image {
  const data = new Uint8Array(160 * 120 * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + shade) % 256;
  return { kind: 'Image', frameId: 'camera', width: 160, height: 120, encoding: 'rgb8', step: 480, data };
}

const scan: LaserScan = {
  kind: 'LaserScan',
  frameId: 'laser',
  angleMinRad: -Math.PI,
  angleMaxRad: Math.PI,
  angleIncrementRad: (2 * Math.PI) / 360,
  rangeMinM: 0.05,
  rangeMaxM: 8,
  rangesM: Float32Array.from({ length: 360 }, (_, i) => 1 + (i % 40) / 10),
};
const joints: JointState = {
  kind: 'JointState',
  names: ['left_wheel', 'right_wheel'],
  positionsRad: new Float64Array(2),
  velocitiesRadps: Float64Array.from([2, 2.5]),
  effortsNm: new Float64Array(2),
};
const imu: Imu = {
  kind: 'Imu',
  frameId: 'imu',
  orientation: { x: 0, y: 0, z: 0, w: 1 },
  angularVelocityRadps: { x: 0, y: 0, z: 0.3 },
  linearAccelerationMps2: { x: 0.2, y: 0, z: 9.8 },
};

/** A tick's frame at `timeMs`, each message received 10 ms before it. */
function frame(parts: { camera?: Image; scan?: LaserScan; joints?: JointState; imu?: Imu }, timeMs = 10): ObservationFrame {
  const sample = <M extends Image | LaserScan | JointState | Imu>(topic: string, msg: M) => ({
    received: { topic, receiveTimeMs: timeMs - 10, sourceTimeMs: timeMs - 10, msg },
    ageMs: 10,
  });
  const present = (Object.keys(parts) as StreamRole[]).filter((role) => parts[role as keyof typeof parts] !== undefined);
  return {
    timeMs,
    missing: (['camera', 'scan', 'joints', 'imu', 'odom'] as const).filter((role) => !present.includes(role)),
    ...(parts.camera ? { camera: sample('/camera/image_raw', parts.camera) } : {}),
    ...(parts.scan ? { scan: sample('/scan', parts.scan) } : {}),
    ...(parts.joints ? { joints: sample('/joint_states', parts.joints) } : {}),
    ...(parts.imu ? { imu: sample('/imu', parts.imu) } : {}),
  };
}

const full = () => frame({ camera: cameraImage(0), scan, joints, imu });
const command = { linearMps: 0.2, angularRadps: 0.1 };
const slot = { camera: [0, 160], lidar: [160, 224], proprio: [224, 247], liveness: [247, 253] } as const;
const part = (values: Float32Array, modality: keyof typeof slot) => values.slice(...slot[modality]);

// ── Tests ───────────────────────────────────────────────────────────────────────────────────────

describe('OnnxPerception', () => {
  it("encodes a frame with the manifest's encoders into one fused embedding", async () => {
    const perception = await load(encoderSet());
    expect(perception.version).toBe('test-encoders-1');
    expect(perception.embeddingSize).toBe(256);
    expect(perception.status().modalities.map((m) => m.state)).toEqual(['no-data', 'no-data', 'no-data']);
    const { values, mask } = await perception.encode(full(), command);
    expect(mask).toEqual({ camera: true, lidar: true, proprio: true });
    expect([...values.slice(253)]).toEqual([1, 1, 1]);
    for (const modality of ['camera', 'lidar', 'proprio'] as const) expect(part(values, modality).some((v) => v !== 0)).toBe(true);
    const status = perception.status();
    expect(status).toMatchObject({ version: 'test-encoders-1', intraOpThreads: 1, interOpThreads: 1 });
    expect(status.modalities.map((m) => [m.modality, m.state, m.provider])).toEqual([
      ['camera', 'on', 'cpu'],
      ['lidar', 'on', 'cpu'],
      ['proprio', 'on', 'cpu'],
    ]);
    expect(status.modalities[0]!.file).toMatch(/camera\.onnx$/);
    expect(perception.alerts()).toEqual([]);
  });

  it("gives a missing or stale stream zeros and a 0 flag, never the last tick's features", async () => {
    const perception = await load(encoderSet());
    const before = await perception.encode(full(), command);
    const withoutCamera = await perception.encode(frame({ scan, joints, imu }), command);
    expect(withoutCamera.mask).toEqual({ camera: false, lidar: true, proprio: true });
    expect(part(withoutCamera.values, 'camera').every((v) => v === 0)).toBe(true);
    expect(withoutCamera.values[253]).toBe(0);
    expect(part(withoutCamera.values, 'lidar')).toEqual(part(before.values, 'lidar'));
    expect(perception.status().modalities[0]!.state).toBe('no-data');
    // Proprioception needs both the wheels and the IMU.
    const withoutImu = await perception.encode(frame({ camera: cameraImage(0), scan, joints }), command);
    expect(withoutImu.mask).toEqual({ camera: true, lidar: true, proprio: false });
    expect(part(withoutImu.values, 'proprio').every((v) => v === 0)).toBe(true);
    expect(perception.alerts()).toEqual([]);
  });

  it("writes each modality's liveness: how much its input changed since the previous tick, and its age", async () => {
    const perception = await load(encoderSet());
    const at = (timeMs: number, parts: Parameters<typeof frame>[0]) => frame(parts, timeMs);
    const liveness = (values: Float32Array) => Array.from(part(values, 'liveness'));
    const age = Math.fround(10 / 500);
    // The first tick has nothing to compare with: no change, and each stream's age (10 ms of 500).
    const first = await perception.encode(at(100, { camera: cameraImage(0), scan, joints, imu }), command);
    expect(liveness(first.values)).toEqual([0, age, 0, age, 0, age]);
    // New messages repeating the last ones bit for bit (the same picture, scan and readings): each reads as repeated, apart from any change a live stream makes.
    const repeated = await perception.encode(at(200, { camera: cameraImage(0), scan, joints, imu }), command);
    expect(liveness(repeated.values)).toEqual([REPEATED_CHANGE, age, REPEATED_CHANGE, age, REPEATED_CHANGE, age]);
    // Another picture: the camera changed, the rest were repeated.
    const moved = await perception.encode(at(300, { camera: cameraImage(90), scan, joints, imu }), command);
    const [cameraChange, , lidarChange, , proprioChange] = liveness(moved.values);
    expect(cameraChange).toBeGreaterThan(0.5);
    expect([lidarChange, proprioChange]).toEqual([REPEATED_CHANGE, REPEATED_CHANGE]);
    // A missing camera reads 0 and 0 (its flag says why) and leaves nothing to compare the next picture with.
    const without = await perception.encode(at(400, { scan, joints, imu }), command);
    expect(liveness(without.values).slice(0, 2)).toEqual([0, 0]);
    const back = await perception.encode(at(500, { camera: cameraImage(0), scan, joints, imu }), command);
    expect(liveness(back.values)[0]).toBe(0);
    // After a pause longer than a second (a new episode, a stalled loop) a change is not measured either.
    const laterFrame = at(2000, { camera: cameraImage(90), scan, joints, imu });
    const later = await perception.encode(laterFrame, command);
    expect(liveness(later.values)[0]).toBe(0);
    // The same scan handed again, none having come since (a stream slower than the tick): nothing new, no repeat; its age grows.
    const slow = at(2100, { camera: cameraImage(0), scan, joints, imu });
    slow.scan = { received: laterFrame.scan!.received, ageMs: 110 };
    const [, , slowChange, slowAge] = liveness((await perception.encode(slow, command)).values);
    expect([slowChange, slowAge]).toEqual([0, Math.fround(110 / 500)]);
    expect(perception.slots.filter((s) => s.name.startsWith('liveness-'))).toEqual([
      { name: 'liveness-camera', offset: 247, size: 2 },
      { name: 'liveness-lidar', offset: 249, size: 2 },
      { name: 'liveness-proprio', offset: 251, size: 2 },
    ]);
  });

  it('encodes what it sees: another image, another camera embedding; the last command reaches proprioception', async () => {
    const perception = await load(encoderSet());
    const a = await perception.encode(full(), command);
    const b = await perception.encode(frame({ camera: cameraImage(90), scan, joints, imu }), { linearMps: -0.2, angularRadps: 0 });
    expect(part(b.values, 'camera')).not.toEqual(part(a.values, 'camera'));
    expect(part(b.values, 'proprio')).not.toEqual(part(a.values, 'proprio'));
  });

  const badEncoders: Array<[string, (manifest: ManifestJson, folder: string) => void, RegExp]> = [
    [
      'a wrong sha256',
      (m) => void (m.encoders.camera!.sha256 = '0'.repeat(64)),
      /camera\.onnx fails its sha256 check: the manifest expects 0{64}, the file has [0-9a-f]{64}/,
    ],
    ['a missing file', (_m, folder) => unlinkSync(join(folder, 'camera.onnx')), /camera\.onnx is missing/],
    [
      'a truncated file',
      (m, folder) => {
        const truncated = readFileSync(join(folder, 'camera.onnx')).subarray(0, 4096);
        writeFileSync(join(folder, 'camera.onnx'), truncated);
        m.encoders.camera!.sha256 = sha256(truncated);
      },
      /camera\.onnx could not be loaded by onnxruntime/,
    ],
    [
      'a model of another input shape',
      (m, folder) => {
        const bytes = readFileSync(join(root, 'camera-96x128.onnx'));
        writeFileSync(join(folder, 'camera.onnx'), bytes);
        m.encoders.camera!.sha256 = sha256(bytes);
      },
      /camera\.onnx takes input "image" of shape \[batch, 96, 128, 3\], but the manifest gives it \[1, 48, 64, 3\]/,
    ],
    [
      'NaN outputs',
      (m, folder) => {
        const bytes = readFileSync(join(root, 'camera-nan.onnx'));
        writeFileSync(join(folder, 'camera.onnx'), bytes);
        m.encoders.camera!.sha256 = sha256(bytes);
      },
      /camera\.onnx produced NaN in its output on a trial run/,
    ],
  ];

  it.each(badEncoders)('runs on without an encoder refused for %s, and says so', async (_what, tweak, problem) => {
    const perception = await load(encoderSet(tweak));
    const alerts = perception.alerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ key: 'perception-camera', severity: 'error' });
    expect(alerts[0]!.message).toMatch(problem);
    expect(alerts[0]!.hint).toMatch(/^Perception runs on without the camera; fix or replace .*camera\.onnx and restart\.$/);
    const { mask, values } = await perception.encode(full(), command);
    expect(mask).toEqual({ camera: false, lidar: true, proprio: true });
    expect(part(values, 'camera').every((v) => v === 0)).toBe(true);
    const camera = perception.status().modalities[0]!;
    expect(camera.state).toBe('off');
    expect(camera.problem).toMatch(problem);
  });

  it('turns a modality off when its encoder gives Infinity or NaN on a real frame, and runs on', async () => {
    // Fine on the all-zeros trial input; any real reading overflows float32.
    const proprio = randomlyInitialised(DEFAULT_ENCODER_SHAPES.proprio, 8);
    const first = proprio.layers[0]!;
    if (first.kind === 'dense') first.weights.fill(3e38);
    const bytes = readFileSync(writeNet('proprio-overflow', proprio));
    const perception = await load(
      encoderSet((m, folder) => {
        writeFileSync(join(folder, 'proprio.onnx'), bytes);
        m.encoders.proprio!.sha256 = sha256(bytes);
      }),
    );
    expect(perception.alerts()).toEqual([]);
    const overflowed = await perception.encode(full(), command);
    expect(overflowed.mask).toEqual({ camera: true, lidar: true, proprio: false });
    expect(part(overflowed.values, 'proprio').every((v) => v === 0)).toBe(true);
    // Its liveness reads as a missing stream's, not as a stream that is there.
    expect(Array.from(part(overflowed.values, 'liveness').slice(4, 6))).toEqual([0, 0]);
    const [alert] = perception.alerts();
    expect(alert).toMatchObject({ key: 'perception-proprio', severity: 'error' });
    expect(alert!.message).toMatch(/proprio\.onnx produced (NaN|Infinity|-Infinity) in its output/);
    expect(alert!.hint).toMatch(/without proprioception/);
    const next = await perception.encode(full(), command);
    expect(next.mask.proprio).toBe(false);
    expect(perception.status().modalities[2]!.state).toBe('off');
  });

  it('goes without the camera for a tick whose image it cannot read, says why, and comes back', async () => {
    const perception = await load(encoderSet());
    const broken = { ...cameraImage(0), data: new Uint8Array(100) };
    const bad = await perception.encode(frame({ camera: broken, scan, joints, imu }), command);
    expect(bad.mask).toEqual({ camera: false, lidar: true, proprio: true });
    expect(perception.alerts()).toEqual([
      expect.objectContaining({ key: 'perception-input-camera', severity: 'warn', message: expect.stringMatching(/too few bytes/) }),
    ]);
    const good = await perception.encode(full(), command);
    expect(good.mask.camera).toBe(true);
    expect(perception.alerts()).toEqual([]);
  });

  it("projects an encoder whose output is not its slot's size (bring your own)", async () => {
    const shape = DEFAULT_ENCODER_SHAPES.camera;
    const layers = shape.layers.map((layer) => (layer.kind === 'dense' ? { ...layer, outSize: 384 } : layer));
    const folder = join(root, `own-${folders++}`);
    const path = writeEncoderSet(folder, { version: 'own-1', nets: { camera: randomlyInitialised({ ...shape, layers }, 5) } });
    const perception = await load(path);
    const { values, mask } = await perception.encode(full(), command);
    expect(mask).toEqual({ camera: true, lidar: false, proprio: false });
    expect(values).toHaveLength(256);
    expect(part(values, 'camera').some((v) => v !== 0)).toBe(true);
    expect(perception.status().modalities.map((m) => m.state)).toEqual(['on', 'not-configured', 'not-configured']);
  });

  it('refuses to start without a readable, valid manifest, naming it', async () => {
    const folder = join(root, `manifests-${folders++}`);
    mkdirSync(folder);
    await expect(loadPerception(join(folder, 'nowhere.json'))).rejects.toThrow(`encoder manifest ${join(folder, 'nowhere.json')} is missing`);
    writeFileSync(join(folder, 'broken.json'), '{ "version": ');
    await expect(loadPerception(join(folder, 'broken.json'))).rejects.toThrow(new RegExp(`encoder manifest ${join(folder, 'broken.json')} is not valid JSON`));
    writeFileSync(
      join(folder, 'invalid.json'),
      JSON.stringify({ version: '1', embeddingSize: 10, encoders: {}, fusion: { slots: { camera: 1, lidar: 1, proprio: 1 }, projectionSeed: 1 } }),
    );
    await expect(loadPerception(join(folder, 'invalid.json'))).rejects.toThrow(/invalid\.json is invalid: \(root\): embeddingSize must equal/);
  });
});
