import { execFile } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REINS = fileURLToPath(new URL('./reins.mjs', import.meta.url));

describe('reins setup gpu --check', () => {
  it('on a machine without an NVIDIA GPU exits non-zero and names what is missing for each path', async () => {
    // The project's test and CI machines have no GPU (a GPU machine's own check is in the closing notes).
    const run = promisify(execFile)(process.execPath, [REINS, 'setup', 'gpu', '--check']);
    const failure = await run.then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    if (failure === undefined) return expect.unreachable('a machine with a usable GPU path: this test expects none');
    expect(failure.code).toBe(1);
    expect(failure.stdout).toContain('cannot work: onnxruntime-cuda');
    expect(failure.stdout).toContain('cannot work: tfjs-node-gpu');
    expect(failure.stdout).toContain('missing: an NVIDIA GPU with its driver');
    expect(failure.stdout).toContain('No GPU path can work here');
  }, 30_000);

  it('refuses a target it does not know', async () => {
    const failure = await promisify(execFile)(process.execPath, [REINS, 'setup', 'tpu']).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('reins setup takes gpu');
  }, 30_000);
});

describe('reins setup gpu on a machine where no GPU path can work', () => {
  it('installs nothing: node_modules is the same file for file, size for size, before and after', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const tree = () =>
      readdirSync(`${root}node_modules`, { recursive: true, encoding: 'utf8' })
        .map((name) => {
          const stats = lstatSync(`${root}node_modules/${name}`);
          return `${name} ${stats.isDirectory() ? 'dir' : stats.size} ${stats.mtimeMs}`;
        })
        .sort();
    const before = tree();
    const failure = await promisify(execFile)(process.execPath, [REINS, 'setup', 'gpu']).catch((error: { code: number; stdout: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stdout: string }).stdout).toContain('No GPU path can work here');
    const after = tree();
    expect(after.length).toBe(before.length);
    expect(after).toEqual(before);
  }, 60_000);
});

describe('reins setup gpu --check --json', () => {
  it('prints one JSON document naming each path and what it lacks', async () => {
    const failure = await promisify(execFile)(process.execPath, [REINS, 'setup', 'gpu', '--check', '--json']).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    const report = JSON.parse((failure as { stdout: string }).stdout) as { paths: { id: string; canWork: boolean; missing: string[] }[] };
    expect(report.paths.map((path) => [path.id, path.canWork])).toEqual([
      ['onnxruntime-cuda', false],
      ['tfjs-node-gpu', false],
    ]);
    expect(report.paths.every((path) => path.missing.length > 0)).toBe(true);
  }, 30_000);
});
