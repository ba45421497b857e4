// Where a ROS package's folder is, as `$(find PKG)` in a xacro asks: a folder the operator named
// (`--ros-package NAME=DIR`), else the package the file itself sits in (the nearest package.xml above
// it that names PKG), else an installed one on the robot's environment paths (AMENT_PREFIX_PATH's
// `share/PKG`, ROS 2; ROS_PACKAGE_PATH's `PKG`, ROS 1), each checked for a package.xml.
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export interface RosPackageLookup {
  /** Folders the operator named, by package. */
  named: Readonly<Record<string, string>>;
  /** The file whose folders are searched upwards for the package it belongs to. */
  nearFile?: string;
  /** The environment read for AMENT_PREFIX_PATH and ROS_PACKAGE_PATH. */
  env?: NodeJS.ProcessEnv;
}

/** The package's folder, or undefined when none of the places has it. */
export function findRosPackage(name: string, lookup: RosPackageLookup): string | undefined {
  const named = lookup.named[name];
  if (named !== undefined) return named;
  if (lookup.nearFile !== undefined) {
    for (let folder = dirname(lookup.nearFile); ; folder = dirname(folder)) {
      if (packageNameIn(folder) === name) return folder;
      if (dirname(folder) === folder) break;
    }
  }
  const env = lookup.env ?? process.env;
  const candidates = [
    ...pathList(env['AMENT_PREFIX_PATH']).map((prefix) => join(prefix, 'share', name)),
    ...pathList(env['ROS_PACKAGE_PATH']).map((root) => join(root, name)),
  ];
  return candidates.find((folder) => packageNameIn(folder) === name);
}

/** Where `$(find PKG)` looked, in words, for the message that it found nothing. */
export function rosPackagePlaces(lookup: RosPackageLookup): string {
  const env = lookup.env ?? process.env;
  const places = ['the folders named with --ros-package NAME=DIR'];
  if (lookup.nearFile !== undefined) places.push(`the package.xml files above ${lookup.nearFile}`);
  if (pathList(env['AMENT_PREFIX_PATH']).length > 0) places.push('AMENT_PREFIX_PATH');
  if (pathList(env['ROS_PACKAGE_PATH']).length > 0) places.push('ROS_PACKAGE_PATH');
  return places.join(', ');
}

/** The <name> a folder's package.xml gives; undefined without one. */
function packageNameIn(folder: string): string | undefined {
  const manifest = join(folder, 'package.xml');
  if (!existsSync(manifest)) return undefined;
  try {
    return /<name>\s*([^<\s]+)\s*<\/name>/.exec(readFileSync(manifest, 'utf8'))?.[1];
  } catch {
    // An unreadable manifest names no package: the search goes on.
    return undefined;
  }
}

function pathList(value: string | undefined): string[] {
  return (value ?? '').split(delimiter).filter((entry) => entry !== '');
}
