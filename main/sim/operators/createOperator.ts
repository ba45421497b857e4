// The named operators a bench can choose from (`expert`, `realistic`), made from a name.
import type { Arena } from '../arena.ts';
import { ExpertOperator } from './expertOperator.ts';
import { RealisticOperator } from './realisticOperator.ts';
import { isSimOperatorName, SIM_OPERATORS, type SimOperator, type SimOperatorName } from './simOperator.ts';

export { isSimOperatorName, SIM_OPERATORS, type SimOperator, type SimOperatorName } from './simOperator.ts';

const OPERATOR_FACTORIES: Readonly<Record<SimOperatorName, (arena: Arena, seed: number) => SimOperator>> = Object.freeze({
  expert: (arena, seed) => new ExpertOperator(arena, seed),
  realistic: (arena, seed) => new RealisticOperator(arena, seed),
});

/** The operator called `name`, seeded; a RangeError for a name that is not one of SIM_OPERATORS. */
export function createOperator(name: SimOperatorName, arena: Arena, seed: number): SimOperator {
  if (!isSimOperatorName(name)) throw new RangeError(`unknown operator "${String(name)}"; operators: ${SIM_OPERATORS.join(', ')}`);
  return OPERATOR_FACTORIES[name](arena, seed);
}
