import { describe, expect, it } from 'vitest';
import type { SceneFrame } from './contract.ts';
import { chooseFixedFrame, tfTreeRows } from './sceneFrames.ts';

const frame = (name: string, parent?: string): SceneFrame => ({ frame: name, ...(parent !== undefined ? { parent } : {}), static: false });

describe('the fixed frame', () => {
  const tree = [frame('odom', 'map'), frame('map'), frame('base_link', 'odom'), frame('laser', 'base_link')];

  it('is the one asked for where the tree has it', () => {
    expect(chooseFixedFrame(tree, 'laser')).toBe('laser');
  });

  it('is the map, else odom, else base_link, when the one asked for is missing', () => {
    expect(chooseFixedFrame(tree, 'world')).toBe('map');
    expect(chooseFixedFrame(tree.slice(2).concat(frame('odom')), undefined)).toBe('odom');
    expect(chooseFixedFrame([frame('base_link', 'base_footprint'), frame('laser', 'base_link')], undefined)).toBe('base_link');
  });

  it('is a root of the tree when none of those is there, and nothing for an empty tree', () => {
    expect(chooseFixedFrame([frame('arm', 'world'), frame('tool', 'arm')], undefined)).toBe('arm');
    expect(chooseFixedFrame([], 'map')).toBeUndefined();
  });
});

describe('the TF tree rows', () => {
  it('list each frame once under its parent, indented by depth, siblings by name', () => {
    const rows = tfTreeRows([frame('laser', 'base_link'), frame('camera_link', 'base_link'), frame('base_link', 'odom'), frame('odom', 'map'), frame('map')]);
    expect(rows.map((row) => `${'  '.repeat(row.depth)}${row.frame.frame}`)).toEqual(['map', '  odom', '    base_link', '      camera_link', '      laser']);
  });

  it('keep frames of a cycle, at depth 0, after the tree', () => {
    const rows = tfTreeRows([frame('a', 'b'), frame('b', 'a'), frame('map')]);
    expect(rows.map((row) => [row.frame.frame, row.depth])).toEqual([
      ['map', 0],
      ['a', 0],
      ['b', 1],
    ]);
  });
});
