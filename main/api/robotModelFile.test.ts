import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRobotModelFile } from './robotModelFile.ts';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-urdf-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the --urdf file', () => {
  it('is read once, whole', async () => {
    const path = join(folder, 'rover.urdf');
    const urdf = '<?xml version="1.0"?>\n<robot name="rover"><link name="base_link"/></robot>\n';
    await writeFile(path, urdf);
    expect(await readRobotModelFile(path)).toEqual({ ok: true, file: { path, urdf } });
  });

  it('is refused, named, when it cannot be read or is plainly no URDF', async () => {
    const missing = join(folder, 'missing.urdf');
    expect(await readRobotModelFile(missing)).toEqual({ ok: false, problem: `the robot model ${missing} cannot be read: there is no such file` });
    expect(await readRobotModelFile(folder)).toEqual({ ok: false, problem: `the robot model ${folder} cannot be read: it is a folder` });
    const mesh = join(folder, 'wheel.stl');
    await writeFile(mesh, 'solid wheel\nendsolid wheel\n');
    expect(await readRobotModelFile(mesh)).toEqual({ ok: false, problem: `the robot model ${mesh} is not a URDF: it has no <robot> element` });
  });
});
