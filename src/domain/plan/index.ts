// Plans (POST /plans), pure: plain data in, plain data out; no Kafka client, no I/O, no clock.
//
//   planner.ts      the goals (decommission, rebalance, replication-factor, rack-repair), minimal
//                   movement, rack awareness, preferred-leader balance, warnings
//   lower-bound.ts  what any plan reaching the goal must move, from the input alone
//   scope.ts        topics / excludeTopics (names or /regex/)
//   generate.ts     Kafka's from-scratch assignment (`kafka-reassign-partitions.sh --generate`), the baseline
export * from './types.js';
export * from './planner.js';
export * from './lower-bound.js';
export * from './scope.js';
export * from './generate.js';
export * from './reassignment-body.js';
