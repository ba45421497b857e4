// `reins setup gpu --check [--json]`: names the GPU, the driver, and the CUDA and cuDNN runtimes found,
// against what each GPU package needs, and says which GPU paths can work here. Exit 0 when at least
// one can, 1 when none can (each with what is missing). `reins setup gpu` then installs and checks the
// paths that can work (nothing at all when none can); `reins setup cpu` removes them again.
import { parseArgs } from 'node:util';
import { GPU_PATHS, judgeGpuPaths, readGpuFacts, type GpuFacts, type GpuPathVerdict } from '../core/runtime/gpuRuntimes.ts';
import { installGpuPaths, removeGpuPaths, type GpuStepOutcome } from '../session/gpuSetup.ts';
import { UsageError } from './usageError.ts';

export const SETUP_USAGE = `  reins setup gpu --check [--json]      the GPU, driver, CUDA and cuDNN found, against what each GPU path needs
                                       (encoders: CUDA 12 + cuDNN 9; world model on tfjs-node-gpu 4.22: CUDA 11.2 + cuDNN 8.1)
  reins setup gpu | cpu                installs and checks the GPU paths that can work here (nothing when none can) | removes them`;

export interface GpuCheckReport {
  facts: GpuFacts;
  paths: { id: string; purpose: string; needs: string; canWork: boolean; missing: string[] }[];
}

export function gpuCheckReport(facts: GpuFacts, verdicts: readonly GpuPathVerdict[] = judgeGpuPaths(facts, GPU_PATHS)): GpuCheckReport {
  return {
    facts,
    paths: verdicts.map((verdict) => ({
      id: verdict.path.id,
      purpose: verdict.path.purpose,
      needs: `${verdict.path.npmPackage}: ${verdict.path.cudaText}, ${verdict.path.cudnnText}`,
      canWork: verdict.canWork,
      missing: verdict.missing,
    })),
  };
}

export function formatGpuCheck(report: GpuCheckReport): string {
  const { facts } = report;
  const lines: string[] = [];
  if (facts.devices.length === 0) lines.push(`GPU: none (${facts.smiProblem ?? 'nvidia-smi lists none'})`);
  for (const device of facts.devices) {
    lines.push(
      `GPU: ${device.name}${device.memoryMiB === undefined ? '' : `, ${device.memoryMiB} MiB`}; driver ${device.driverVersion}${facts.driverCudaVersion ? ` (supports CUDA up to ${facts.driverCudaVersion})` : ''}`,
    );
  }
  const byLibrary = (library: string) => {
    const found = facts.libraries.filter((entry) => entry.library === library);
    if (found.length === 0) return 'none found';
    return found.map((entry) => `${entry.major}${entry.onLoaderPath ? '' : ' (not on the loader path)'} at ${entry.path}`).join('; ');
  };
  lines.push(`CUDA runtime (libcudart): ${byLibrary('cudart')}`, `cuBLAS (libcublas): ${byLibrary('cublas')}`, `cuDNN (libcudnn): ${byLibrary('cudnn')}`, '');
  for (const path of report.paths) {
    lines.push(`${path.canWork ? 'can work' : 'cannot work'}: ${path.id} — ${path.purpose}; needs ${path.needs}`);
    for (const missing of path.missing) lines.push(`  missing: ${missing}`);
  }
  const workable = report.paths.filter((path) => path.canWork);
  lines.push(
    '',
    workable.length > 0
      ? `GPU paths that can work here: ${workable.map((path) => path.id).join(', ')}`
      : "No GPU path can work here: Reins runs on the CPU (encoders on onnxruntime's CPU provider, the world model on its OpenBLAS backend).",
  );
  return lines.join('\n');
}

export async function runSetupCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { check: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
  });
  const [target, ...extra] = positionals;
  if ((target !== 'gpu' && target !== 'cpu') || extra.length > 0) throw new UsageError('reins setup takes gpu or cpu: reins setup gpu --check');
  if (target === 'cpu') {
    if (values.check) throw new UsageError('--check goes with setup gpu');
    return printOutcomes(await removeGpuPaths(), values.json ?? false);
  }
  const facts = readGpuFacts();
  const verdicts = judgeGpuPaths(facts, GPU_PATHS);
  const report = gpuCheckReport(facts, verdicts);
  const workable = verdicts.some((verdict) => verdict.canWork);
  // Only what can work is installed; with --check, or when nothing can, nothing is touched.
  const installed = workable && !values.check ? await installGpuPaths(verdicts) : undefined;
  if (values.json) process.stdout.write(`${JSON.stringify(installed ? { ...report, installed } : report, undefined, 2)}\n`);
  else process.stdout.write(`${formatGpuCheck(report)}\n${installed ? `\n${formatOutcomes(installed)}\n` : ''}`);
  if (!workable) return 1;
  return installed === undefined || installed.every((outcome) => outcome.ok) ? 0 : 1;
}

function formatOutcomes(outcomes: readonly GpuStepOutcome[]): string {
  return outcomes.map((outcome) => `${outcome.ok ? 'done' : 'FAILED'}: ${outcome.path} — ${outcome.detail}`).join('\n');
}

function printOutcomes(outcomes: readonly GpuStepOutcome[], json: boolean): number {
  process.stdout.write(`${json ? JSON.stringify(outcomes, undefined, 2) : formatOutcomes(outcomes)}\n`);
  return outcomes.every((outcome) => outcome.ok) ? 0 : 1;
}
