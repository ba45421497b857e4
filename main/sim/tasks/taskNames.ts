// The tasks the simulated robot can be set, by name: what `reins sim --task`, SimRobotOptions and
// SimLinkOptions accept, and what every episode and its ground truth say they are.

export const SIM_TASKS = ['reach', 'dock', 'corridor'] as const;
export type SimTaskName = (typeof SIM_TASKS)[number];

export function isSimTaskName(name: string): name is SimTaskName {
  return (SIM_TASKS as readonly string[]).includes(name);
}

/** A RangeError naming the unknown task and listing the known ones, for every place that takes a name. */
export function unknownTaskError(name: string): RangeError {
  return new RangeError(`unknown task "${name}": the simulated robot's tasks are ${SIM_TASKS.join(', ')}`);
}
