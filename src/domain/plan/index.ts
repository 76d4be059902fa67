// Plans (POST /plans), pure: plain data in, plain data out; no Kafka client, no I/O, no clock.
//
//   planner.ts      planReassignment: checks the request, builds the model, runs the goal, the result
//   model.ts        the planner's working model (partitions as broker indexes, totals) and loads
//   goals.ts        decommission, rebalance (counts or bytes), replication-factor, rack-repair,
//                   preferred-leader balance: minimal movement
//   moves.ts        where a replica goes and which one goes (destination search, scoring, racks)
//   goal-check.ts   where the result falls short of the goal, as warnings
//   leaders-goal.ts goal leaders (reorders replicas only); ceil-slots.ts the per-topic ceilings
//   lower-bound.ts  what any plan reaching the goal must move, from the input alone
//   scope.ts        topics / excludeTopics (names or /regex/)
//   generate.ts     Kafka's from-scratch assignment (`kafka-reassign-partitions.sh --generate`), the baseline
export * from './types.js';
export * from './planner.js';
export * from './lower-bound.js';
export * from './scope.js';
export * from './generate.js';
export * from './reassignment-body.js';
