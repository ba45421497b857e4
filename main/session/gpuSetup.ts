// Installing and removing the GPU paths (`reins setup gpu`, `reins setup cpu`). Only a path the machine
// can run is installed (gpuRuntimes.ts judges), each pinned and with its install script run on purpose
// — package.json's allowScripts denies them for `npm ci` — and each is checked by running it once.
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../core/runtime/repoRoot.ts';
import type { GpuPathVerdict } from '../core/runtime/gpuRuntimes.ts';
import { openEncoders } from './encoders.ts';

const run = promisify(execFile);

/** What onnxruntime-node 1.30's installer adds for linux/x64 CUDA 12 (its install-metadata.js). */
const ONNX_CUDA_FILES = ['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so', 'libonnxruntime_providers_tensorrt.so'];
const TFJS_NODE_GPU = '@tensorflow/tfjs-node-gpu';
const TFJS_NODE_GPU_VERSION = '4.22.0';

export interface GpuStepOutcome {
  path: string;
  ok: boolean;
  /** What was done or checked, in words. */
  detail: string;
}

function onnxPackageDir(): string {
  return dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
}

function onnxBinFolder(): string {
  return join(onnxPackageDir(), 'bin', 'napi-v6', process.platform, process.arch);
}

/** Fetches onnxruntime-node's CUDA 12 provider files with its own installer, then encodes one frame's worth on the GPU. */
async function installOnnxCuda(): Promise<GpuStepOutcome> {
  await run(process.execPath, [join(onnxPackageDir(), 'script', 'install.js')], {
    cwd: onnxPackageDir(),
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'cuda12' },
    timeout: 15 * 60_000,
  });
  const perception = await openEncoders(undefined, { provider: 'auto' });
  try {
    const status = perception.status();
    const onCuda = status.modalities.filter((modality) => modality.provider === 'cuda').map((modality) => modality.modality);
    const ok = onCuda.length > 0;
    return {
      path: 'onnxruntime-cuda',
      ok,
      detail: ok ? `encoders on CUDA: ${onCuda.join(', ')}` : `installed, but no encoder runs on CUDA: ${status.providerNote ?? 'no reason given'}`,
    };
  } finally {
    await perception.close();
  }
}

/** Installs tfjs-node-gpu pinned with its install script approved (it fetches libtensorflow), then runs one operation on it. */
async function installTfjsNodeGpu(): Promise<GpuStepOutcome> {
  const npm = (args: string[]) => run('npm', args, { cwd: REPO_ROOT, timeout: 15 * 60_000 });
  await npm(['install', '--save-exact', '--no-audit', '--no-fund', '--ignore-scripts', `${TFJS_NODE_GPU}@${TFJS_NODE_GPU_VERSION}`]);
  await npm(['install-scripts', 'approve', TFJS_NODE_GPU]);
  await npm(['rebuild', TFJS_NODE_GPU]);
  const { stdout } = await run(
    process.execPath,
    ['-e', `const tf=require('${TFJS_NODE_GPU}');const y=tf.matMul(tf.ones([64,64]),tf.ones([64,64]));console.log(tf.getBackend(),y.dataSync()[0])`],
    { cwd: REPO_ROOT },
  );
  const [backend, value] = stdout.trim().split(' ');
  const ok = backend === 'tensorflow' && Number(value) === 64;
  return { path: 'tfjs-node-gpu', ok, detail: ok ? 'a matrix product ran on libtensorflow' : `libtensorflow did not answer as expected: ${stdout.trim()}` };
}

const INSTALLERS: Readonly<Record<string, () => Promise<GpuStepOutcome>>> = { 'onnxruntime-cuda': installOnnxCuda, 'tfjs-node-gpu': installTfjsNodeGpu };

/** Installs and checks each path the verdicts say can work; touches nothing when none can. */
export async function installGpuPaths(verdicts: readonly GpuPathVerdict[]): Promise<GpuStepOutcome[]> {
  const outcomes: GpuStepOutcome[] = [];
  for (const verdict of verdicts.filter((candidate) => candidate.canWork)) {
    const install = INSTALLERS[verdict.path.id]!;
    try {
      outcomes.push(await install());
    } catch (error) {
      outcomes.push({ path: verdict.path.id, ok: false, detail: `install failed: ${(error as Error).message.split('\n')[0]}` });
    }
  }
  return outcomes;
}

/** Undoes `setup gpu`: the CUDA provider files and tfjs-node-gpu (with its allowScripts entry) go. */
export async function removeGpuPaths(): Promise<GpuStepOutcome[]> {
  const outcomes: GpuStepOutcome[] = [];
  const present = ONNX_CUDA_FILES.map((file) => join(onnxBinFolder(), file)).filter((path) => existsSync(path));
  for (const path of present) rmSync(path);
  outcomes.push({
    path: 'onnxruntime-cuda',
    ok: true,
    detail: present.length > 0 ? `removed ${present.length} CUDA provider files` : 'no CUDA provider files were installed',
  });
  if (existsSync(join(REPO_ROOT, 'node_modules', ...TFJS_NODE_GPU.split('/')))) {
    await run('npm', ['uninstall', '--no-audit', '--no-fund', TFJS_NODE_GPU], { cwd: REPO_ROOT, timeout: 10 * 60_000 });
    await run('npm', ['install-scripts', 'prune'], { cwd: REPO_ROOT });
    outcomes.push({ path: 'tfjs-node-gpu', ok: true, detail: 'uninstalled, and its allowScripts entry pruned' });
  } else outcomes.push({ path: 'tfjs-node-gpu', ok: true, detail: 'was not installed' });
  return outcomes;
}
