// The solids an episode's sensors are cast against. Its own file so that rangeCloud.ts, which reads
// them, need not import episodeWorld.ts, which builds the range-cloud sensor.
import type { SolidBox, SolidPillar } from './arena.ts';

/** The episode's solids; the pillar list grows when an obstacle is dropped in, and the sensors see it. */
export interface EpisodeSolids {
  boxes: readonly SolidBox[];
  pillars: SolidPillar[];
}
