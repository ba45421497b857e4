// Saved policy versions: what is written reads back the same; a damaged file, another format, other
// encoders or another embedding size is refused with its reason; only the newest few are kept.
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { actorShape } from './actor.ts';
import { mlpWeightShapes } from './networks.ts';
import { writeTensorFile } from '../worldmodel/checkpointFile.ts';
import {
  KEPT_POLICY_CHECKPOINTS,
  newestPolicyCheckpoint,
  policyCheckpointFolder,
  readPolicyCheckpoint,
  writePolicyCheckpoint,
  type PolicyCheckpoint,
} from './policyCheckpoints.ts';

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'reins-policy-'));
  folders.push(made);
  return made;
}

function checkpoint(version: string, createdAtMs: number, inputs = 6): PolicyCheckpoint {
  const shape = actorShape(inputs, 4, 1);
  const weights = mlpWeightShapes(shape).map((dims, index) =>
    Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(index * 10 + i)),
  );
  return {
    snapshot: { version, shape, weights, norm: { mean: new Float32Array(inputs).fill(0.5), scale: new Float32Array(inputs).fill(2) }, limits: [0.5, 1.5] },
    reward: [0, 1].map((member) => [Float32Array.of(member, 1, 2), Float32Array.of(3 + member)]),
    encoderVersion: 'enc-1',
    createdAtMs,
    trainedOn: { interventions: 3, preferences: 2, ratings: 1, operatorTicks: 400 },
  };
}

describe('policy checkpoints', () => {
  it('carry the off-policy critics, critic by critic', async () => {
    const dir = folder();
    const written = { ...checkpoint('learned-8', 1000), critics: [0, 1, 2].map((c) => [Float32Array.of(c, 1), Float32Array.of(2, 3, c)]) };
    expect(await readPolicyCheckpoint(await writePolicyCheckpoint(dir, written))).toEqual(written);
  });

  it('read a file from before the critics (no critic group, no count in the header)', async () => {
    const dir = folder();
    const old = checkpoint('learned-3', 1000);
    const shapes = mlpWeightShapes(old.snapshot.shape);
    await writeTensorFile(
      join(dir, 'learned-3.policy'),
      'REINS-POLICY\n',
      {
        format: 1,
        version: 'learned-3',
        encoderVersion: 'enc-1',
        shape: old.snapshot.shape,
        limits: [0.5, 1.5],
        createdAtMs: 1000,
        trainedOn: old.trainedOn,
        rewardMembers: 2,
      },
      {
        actor: old.snapshot.weights.map((values, index) => ({ name: `actor.${index}`, shape: shapes[index]!, values })),
        norm: [
          { name: 'norm.mean', shape: [6], values: old.snapshot.norm.mean },
          { name: 'norm.scale', shape: [6], values: old.snapshot.norm.scale },
        ],
        reward: old.reward!.flatMap((member, m) => member.map((values, index) => ({ name: `reward.${m}.${index}`, shape: [values.length], values }))),
      },
    );
    const read = await readPolicyCheckpoint(join(dir, 'learned-3.policy'));
    expect(read).toEqual(old);
    expect(read.critics).toBeUndefined();
  });

  it('reads back what it wrote', async () => {
    const dir = folder();
    const written = checkpoint('learned-7', 1000);
    const path = await writePolicyCheckpoint(dir, written);
    expect(path).toBe(join(dir, 'learned-7.policy'));
    expect(await readPolicyCheckpoint(path)).toEqual(written);
    expect(policyCheckpointFolder('/data/reins', 'enc 1/α')).toBe('/data/reins/policy/enc_1__');
  });

  it('offers the newest usable one and says why the others were refused', async () => {
    const dir = folder();
    await writePolicyCheckpoint(dir, checkpoint('learned-1', 1000));
    await writePolicyCheckpoint(dir, checkpoint('learned-2', 2000));
    await writePolicyCheckpoint(dir, { ...checkpoint('learned-3', 3000), encoderVersion: 'enc-2' });
    await writePolicyCheckpoint(dir, checkpoint('learned-4', 4000, 9));
    const cut = join(dir, 'learned-5.policy');
    await writePolicyCheckpoint(dir, checkpoint('learned-5', 5000));
    writeFileSync(cut, readFileSync(cut).subarray(0, 200));
    writeFileSync(join(dir, 'stray.policy'), 'not a policy at all\n');
    const { checkpoint: newest, refused } = await newestPolicyCheckpoint(dir, { encoderVersion: 'enc-1', embeddingSize: 6 });
    expect(newest?.snapshot.version).toBe('learned-2');
    expect(refused).toHaveLength(4);
    expect(refused.join('\n')).toMatch(/learned-3\.policy learned from encoders enc-2, these are enc-1/);
    expect(refused.join('\n')).toMatch(/learned-4\.policy reads 9 features, the embedding has 6/);
    expect(refused.join('\n')).toMatch(/learned-5\.policy.*(checksum|cut off|damaged)/);
    expect(refused.join('\n')).toMatch(/stray\.policy is not a Reins policy checkpoint/);
    expect(await newestPolicyCheckpoint(join(dir, 'none-here'), { encoderVersion: 'enc-1', embeddingSize: 6 })).toEqual({ checkpoint: undefined, refused: [] });
  });

  it('keeps only the newest files', async () => {
    const dir = folder();
    for (let i = 1; i <= KEPT_POLICY_CHECKPOINTS + 3; i++) {
      const path = await writePolicyCheckpoint(dir, checkpoint(`learned-${i}`, i));
      // Written one after another within a millisecond: give each its own time.
      utimesSync(path, i, i);
    }
    const kept = readdirSync(dir).filter((name) => name.endsWith('.policy'));
    expect(kept).toHaveLength(KEPT_POLICY_CHECKPOINTS);
    expect(kept).not.toContain('learned-1.policy');
    expect(kept).toContain(`learned-${KEPT_POLICY_CHECKPOINTS + 3}.policy`);
  });

  it('refuses a version that cannot name a file', async () => {
    await expect(writePolicyCheckpoint(folder(), checkpoint('../escape', 1))).rejects.toThrow(/cannot name a file/);
  });
});
