// Learned policy versions on disk, so a restart loses nothing the operator taught: each candidate's
// actor, feature statistics and reward ensemble in one file (the world model's checksummed tensor
// format), named by version, in a folder per encoder version. The newest few are kept.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CheckpointError, readTensorFile, writeTensorFile, type NamedArray } from '../worldmodel/checkpointFile.ts';
import type { ActorSnapshot } from './learnedPolicy.ts';
import { mlpWeightShapes } from './networks.ts';
import type { PolicyCandidate } from './policyImprover.ts';

const MAGIC = 'REINS-POLICY\n';
export const POLICY_CHECKPOINT_FORMAT = 1;
const SUFFIX = '.policy';
/** Policy files kept per folder; older ones are removed as new ones come. */
export const KEPT_POLICY_CHECKPOINTS = 20;

const headerSchema = z.object({
  format: z.literal(POLICY_CHECKPOINT_FORMAT),
  version: z.string().min(1),
  encoderVersion: z.string().min(1),
  shape: z.object({ inputs: z.number().int().min(1), hidden: z.number().int().min(1), layers: z.number().int().min(1), outputs: z.number().int().min(1) }),
  limits: z.tuple([z.number().positive(), z.number().positive()]),
  createdAtMs: z.number(),
  trainedOn: z.object({
    interventions: z.number().int().min(0),
    preferences: z.number().int().min(0),
    ratings: z.number().int().min(0),
    operatorTicks: z.number().int().min(0),
  }),
  /** Members of the reward ensemble stored (0 when it had learned nothing). */
  rewardMembers: z.number().int().min(0),
  /** Off-policy critics stored (absent in files from before them, and 0 when they were off). */
  critics: z.number().int().min(0).optional(),
});

/** Where a session's policies are kept: one folder per encoder version under Reins' data folder. */
export function policyCheckpointFolder(dataFolder: string, encoderVersion: string): string {
  return join(dataFolder, 'policy', encoderVersion.replace(/[^A-Za-z0-9._-]/g, '_'));
}

export interface PolicyCheckpoint {
  snapshot: ActorSnapshot;
  reward: Float32Array[][] | undefined;
  /** The off-policy critics, critic by critic; undefined when they were off (or the file is older). */
  critics?: Float32Array[][] | undefined;
  encoderVersion: string;
  createdAtMs: number;
  trainedOn: PolicyCandidate['trainedOn'];
}

export async function writePolicyCheckpoint(folder: string, checkpoint: PolicyCheckpoint): Promise<string> {
  const { snapshot, reward } = checkpoint;
  if (!/^[A-Za-z0-9._-]+$/.test(snapshot.version)) throw new RangeError(`policy version "${snapshot.version}" cannot name a file`);
  await mkdir(folder, { recursive: true });
  const shapes = mlpWeightShapes(snapshot.shape);
  const actor: NamedArray[] = snapshot.weights.map((values, index) => ({ name: `actor.${index}`, shape: shapes[index]!, values }));
  const norm: NamedArray[] = [
    { name: 'norm.mean', shape: [snapshot.norm.mean.length], values: snapshot.norm.mean },
    { name: 'norm.scale', shape: [snapshot.norm.scale.length], values: snapshot.norm.scale },
  ];
  const rewardArrays: NamedArray[] = (reward ?? []).flatMap((member, m) =>
    member.map((values, index) => ({ name: `reward.${m}.${index}`, shape: [values.length], values })),
  );
  const path = join(folder, `${snapshot.version}${SUFFIX}`);
  await writeTensorFile(
    path,
    MAGIC,
    {
      format: POLICY_CHECKPOINT_FORMAT,
      version: snapshot.version,
      encoderVersion: checkpoint.encoderVersion,
      shape: snapshot.shape,
      limits: [...snapshot.limits],
      createdAtMs: checkpoint.createdAtMs,
      trainedOn: checkpoint.trainedOn,
      rewardMembers: reward?.length ?? 0,
      critics: checkpoint.critics?.length ?? 0,
    },
    {
      actor,
      norm,
      reward: rewardArrays,
      critic: (checkpoint.critics ?? []).flatMap((critic, c) =>
        critic.map((values, index) => ({ name: `critic.${c}.${index}`, shape: [values.length], values })),
      ),
    },
  );
  await prune(folder);
  return path;
}

export async function readPolicyCheckpoint(path: string): Promise<PolicyCheckpoint> {
  const expected = { magic: MAGIC, kind: 'policy checkpoint', format: POLICY_CHECKPOINT_FORMAT, groups: ['actor', 'norm', 'reward'] };
  let { header, groups } = await readTensorFile(path, expected, headerSchema);
  // Files from before the critics have no critic group: read it only where the header says it is there.
  if ((header.critics ?? 0) > 0) ({ header, groups } = await readTensorFile(path, { ...expected, groups: [...expected.groups, 'critic'] }, headerSchema));
  const shapes = mlpWeightShapes(header.shape);
  const actor = groups.actor!;
  if (actor.length !== shapes.length || actor.some((array, index) => array.values.length !== shapes[index]!.reduce((a, b) => a * b, 1)))
    throw new CheckpointError(`${path}: the actor's weights do not fit its shape`);
  const [mean, scale] = groups.norm!;
  if (mean === undefined || scale === undefined || mean.values.length !== header.shape.inputs || scale.values.length !== header.shape.inputs)
    throw new CheckpointError(`${path}: the feature statistics do not fit the actor`);
  const rewardArrays = groups.reward!;
  if (header.rewardMembers > 0 && rewardArrays.length % header.rewardMembers !== 0)
    throw new CheckpointError(`${path}: the reward ensemble's weights do not split into ${header.rewardMembers} members`);
  const perMember = header.rewardMembers > 0 ? rewardArrays.length / header.rewardMembers : 0;
  const reward =
    header.rewardMembers > 0
      ? Array.from({ length: header.rewardMembers }, (_, m) =>
          rewardArrays.slice(m * perMember, (m + 1) * perMember).map((array) => Float32Array.from(array.values)),
        )
      : undefined;
  const criticCount = header.critics ?? 0;
  const criticArrays = groups.critic ?? [];
  if (criticCount > 0 && criticArrays.length % criticCount !== 0)
    throw new CheckpointError(`${path}: the critics' weights do not split into ${criticCount} critics`);
  const perCritic = criticCount > 0 ? criticArrays.length / criticCount : 0;
  const critics =
    criticCount > 0
      ? Array.from({ length: criticCount }, (_, c) => criticArrays.slice(c * perCritic, (c + 1) * perCritic).map((array) => Float32Array.from(array.values)))
      : undefined;
  return {
    critics,
    snapshot: {
      version: header.version,
      shape: header.shape,
      weights: actor.map((array) => Float32Array.from(array.values)),
      norm: { mean: Float32Array.from(mean.values), scale: Float32Array.from(scale.values) },
      limits: header.limits,
    },
    reward,
    encoderVersion: header.encoderVersion,
    createdAtMs: header.createdAtMs,
    trainedOn: header.trainedOn,
  };
}

/**
 * The newest checkpoint in the folder that this session can use (same encoders, same embedding size);
 * the files it could not use, each with the reason, for the operator.
 */
export async function newestPolicyCheckpoint(
  folder: string,
  expect: { encoderVersion: string; embeddingSize: number },
): Promise<{ checkpoint: PolicyCheckpoint | undefined; refused: string[] }> {
  const refused: string[] = [];
  let newest: PolicyCheckpoint | undefined;
  for (const name of await policyFiles(folder)) {
    try {
      const checkpoint = await readPolicyCheckpoint(join(folder, name));
      if (checkpoint.encoderVersion !== expect.encoderVersion)
        throw new CheckpointError(`${name} learned from encoders ${checkpoint.encoderVersion}, these are ${expect.encoderVersion}`);
      if (checkpoint.snapshot.shape.inputs !== expect.embeddingSize)
        throw new CheckpointError(`${name} reads ${checkpoint.snapshot.shape.inputs} features, the embedding has ${expect.embeddingSize}`);
      if (newest === undefined || checkpoint.createdAtMs > newest.createdAtMs) newest = checkpoint;
    } catch (error) {
      refused.push((error as Error).message);
    }
  }
  return { checkpoint: newest, refused };
}

async function policyFiles(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder)).filter((name) => name.endsWith(SUFFIX));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Keeps the newest KEPT_POLICY_CHECKPOINTS files (by when they were written). */
async function prune(folder: string): Promise<void> {
  const dated = await Promise.all((await policyFiles(folder)).map(async (name) => ({ name, writtenMs: (await stat(join(folder, name))).mtimeMs })));
  dated.sort((a, b) => b.writtenMs - a.writtenMs);
  for (const { name } of dated.slice(KEPT_POLICY_CHECKPOINTS)) await rm(join(folder, name), { force: true });
}
