import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRobotModelFile } from './robotModelFile.ts';
import { expandXacro } from './xacroExpansion.ts';

const XACRO_NS = 'xmlns:xacro="http://www.ros.org/wiki/xacro"';
const NO_ENV = {};

let folder: string;
/** A package `rover_description` (package.xml, urdf/, include/) and a package elsewhere, `wheels`. */
let description: string;
let wheels: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-xacro-'));
  description = join(folder, 'src', 'rover_description');
  wheels = join(folder, 'elsewhere', 'wheels');
  await mkdir(join(description, 'urdf', 'parts'), { recursive: true });
  await mkdir(wheels, { recursive: true });
  await writeFile(join(description, 'package.xml'), '<package format="3"><name>rover_description</name></package>');
  await writeFile(join(wheels, 'package.xml'), '<package format="3">\n  <name>wheels</name>\n</package>');
  await writeFile(
    join(description, 'urdf', 'parts', 'body.xacro'),
    `<robot ${XACRO_NS}><xacro:property name="body_radius" value="0.2"/>` +
      `<link name="base_link"><visual><geometry><cylinder radius="\${body_radius}" length="\${body_radius / 2}"/></geometry></visual></link></robot>`,
  );
  await writeFile(
    join(wheels, 'wheel.xacro'),
    `<robot ${XACRO_NS}><xacro:macro name="wheel" params="side y">` +
      `<link name="\${side}_wheel"/><joint name="\${side}_wheel_joint" type="continuous"><parent link="base_link"/><child link="\${side}_wheel"/><origin xyz="0 \${y} 0"/></joint>` +
      `</xacro:macro></robot>`,
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function rover(body: string): Promise<string> {
  const path = join(description, 'urdf', 'rover.urdf.xacro');
  await writeFile(path, `<?xml version="1.0"?>\n<robot name="rover" ${XACRO_NS}>${body}</robot>\n`);
  return path;
}

describe('a xacro robot model', () => {
  it('expands includes (relative and through $(find)), macros, properties and args', async () => {
    const path = await rover(
      `<xacro:arg name="prefix" default="small_"/>` +
        `<xacro:include filename="parts/body.xacro"/>` +
        `<xacro:include filename="$(find wheels)/wheel.xacro"/>` +
        `<xacro:wheel side="left" y="\${body_radius}"/><xacro:wheel side="right" y="-\${body_radius}"/>` +
        `<link name="$(arg prefix)laser"/>`,
    );
    const read = await readRobotModelFile(path, { packages: { wheels }, args: { prefix: 'big_' } });
    if (!read.ok) throw new Error(read.problem);
    const urdf = read.file.urdf;
    expect(urdf).toContain('<robot name="rover">');
    expect(urdf).not.toContain('xacro:');
    expect(urdf).toContain('<cylinder radius="0.2" length="0.1"/>');
    expect(urdf).toContain('<link name="left_wheel"/>');
    expect(urdf).toContain('<origin xyz="0 -0.2 0"/>');
    expect(urdf).toContain('<link name="big_laser"/>');
    // Without the argument, its default.
    const defaults = await readRobotModelFile(path, { packages: { wheels }, args: {} });
    expect(defaults.ok && defaults.file.urdf).toContain('<link name="small_laser"/>');
  });

  it('finds the package it sits in, and installed ones on AMENT_PREFIX_PATH', async () => {
    const own = await rover(`<xacro:include filename="$(find rover_description)/urdf/parts/body.xacro"/>`);
    const read = await expandXacro(`<robot name="r" ${XACRO_NS}><xacro:include filename="$(find rover_description)/urdf/parts/body.xacro"/></robot>`, own, {
      packages: {},
      args: {},
      env: NO_ENV,
    });
    expect(read.ok && read.urdf).toContain('<link name="base_link">');
    const prefix = join(folder, 'install');
    await mkdir(join(prefix, 'share', 'wheels'), { recursive: true });
    await writeFile(join(prefix, 'share', 'wheels', 'package.xml'), '<package><name>wheels</name></package>');
    await writeFile(join(prefix, 'share', 'wheels', 'wheel.xacro'), `<robot ${XACRO_NS}><link name="installed_wheel"/></robot>`);
    const installed = await expandXacro(`<robot name="r" ${XACRO_NS}><xacro:include filename="$(find wheels)/wheel.xacro"/></robot>`, own, {
      packages: {},
      args: {},
      env: { AMENT_PREFIX_PATH: prefix },
    });
    expect(installed.ok && installed.urdf).toContain('<link name="installed_wheel"/>');
  });

  it('names the package $(find) could not find, and how to give it', async () => {
    const path = await rover(`<xacro:include filename="$(find nowhere_description)/urdf/arm.xacro"/>`);
    const read = await readRobotModelFile(path, { packages: {}, args: {}, env: NO_ENV });
    expect(read).toEqual({ ok: false, problem: expect.stringContaining(`the xacro ${path} does not expand: the package nowhere_description`) });
    expect(!read.ok && read.problem).toContain('--ros-package nowhere_description=DIR');
  });

  it('names an include that cannot be read, an argument without a value, a macro it does not know and malformed XML', async () => {
    const missing = await rover(`<xacro:include filename="parts/missing.xacro"/>`);
    expect(await readRobotModelFile(missing, { packages: {}, args: {} })).toEqual({
      ok: false,
      problem: `the xacro ${missing} does not expand: the included file ${join(description, 'urdf', 'parts', 'missing.xacro')} cannot be read: there is no such file`,
    });
    const noValue = await rover(`<xacro:arg name="arm"/><link name="$(arg arm)"/>`);
    const argRead = await readRobotModelFile(noValue, { packages: {}, args: {} });
    expect(!argRead.ok && argRead.problem).toMatch(/argument arm has no value.*--xacro-arg arm:=VALUE/);
    const unknownMacro = await rover(`<xacro:gripper side="left"/>`);
    const macroRead = await readRobotModelFile(unknownMacro, { packages: {}, args: {} });
    expect(!macroRead.ok && macroRead.problem).toBe(`the xacro ${unknownMacro} does not expand: Cannot find macro "gripper"`);
    const malformed = await rover(`<link name="a">`);
    const malformedRead = await readRobotModelFile(malformed, { packages: {}, args: {} });
    expect(!malformedRead.ok && malformedRead.problem).toMatch(/does not expand: non-well-formed element/);
  });

  it('leaves no DOMParser behind in the core', async () => {
    const path = await rover(`<link name="base_link"/>`);
    await readRobotModelFile(path, { packages: {}, args: {} });
    expect((globalThis as { DOMParser?: unknown }).DOMParser).toBeUndefined();
  });
});
