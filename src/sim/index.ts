// Public entry point of the Kafka cluster simulator. Tests, `npm start` (embedded
// demo) and `npm run sim` all start clusters through startSimulator().
//
import type { SimulatorOptions } from './options.js';
import { Simulator } from './simulator.js';
export { systemClock, ManualClock, type Clock } from './clock.js';
export type { AlteredReassignment, CompletedReassignment } from './cluster/partition-moves.js';
export type { SimulatorOptions, SimulatedCluster } from './options.js';

/** Starts a simulated cluster: every broker listens before this resolves. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  return new Simulator(opts).start();
}

export { Simulator };
