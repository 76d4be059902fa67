// Reassignments, pure: plain data in, plain data out; no Kafka client, no I/O, no clock.
//
//   request.ts         parse a POST /reassignments body (gateway JSON or kafka-reassign-partitions.sh file);
//                      format the rollback file
//   plan.ts            validate against a ClusterSnapshot (per-partition errors) and plan the move;
//                      plan-types.ts its shapes, partition-lookup.ts its per-partition lookups
//   throttles.ts       Kafka's throttle computation (leader/follower `partition:broker` lists, brokers)
//   throttle-configs.ts the throttle config names; parse/format throttled-replicas values
//   throttle-ledger.ts what the gateway owns, and the IncrementalAlterConfigs operations that add what is
//                      demanded and remove only what the gateway added (restoring prior values)
//   throttle-ownership.ts who owns the throttles set now (GET /throttles); throttle-entries.ts list helpers
//   estimate.ts        bytes to move per broker and the duration at a throttle
//   progress.ts        per-replica and total progress, observed rate, ETA, stall detection from samples
//   pacing.ts          paced execution: which queued moves start next within the bounds, waves, ETA
//   partition-order.ts the (topic, partition) order pages of partitions are served in, in steps
//   log-dirs.ts        intra-broker moves (log_dirs): the (broker, dir) pairs, their checks, their completion
//   deadline.ts        deadline pacing: the lowest throttle that ends by finishBy, and the forecast
//   deadline-request.ts the finishBy / throttleBounds fields of a POST

export * from './types.js';
export * from './partition-map.js';
export * from './partition-order.js';
export * from './request.js';
export * from './plan-types.js';
export * from './plan.js';
// Steps computations (../steps.ts): services drive the *Steps functions exported here.
export { drain, STEP_ITEMS, type Steps } from '../steps.js';
export * from './throttle-configs.js';
export * from './throttles.js';
export * from './throttle-ledger.js';
export * from './throttle-ownership.js';
export { sortedUnion } from './throttle-entries.js';
export * from './estimate.js';
export * from './progress.js';
export * from './pacing.js';
export * from './log-dirs.js';
export * from './deadline.js';
export * from './deadline-request.js';
