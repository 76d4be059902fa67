// The gateway's own state topic is part of the gateway, not a user topic: deleting it (or
// adding partitions, which would split the log whose single order decides claims) would lose
// every reassignment record and the throttle ledger, and leave throttles nobody removes. The
// gateway refuses both with 409, hides it from GET /topics unless ?internal=true, and lists it
// as internal. (Kafka's own tools can still do it: the state store then reports the topic
// missing; see the README, "Recovering the state topic".)
import type { MappedProblem } from '../errors.js';
import { problemType } from '../problem.js';

export interface ProtectedTopics {
  has(name: string): boolean;
}

export const noProtectedTopics: ProtectedTopics = { has: () => false };

const REFUSED = { delete: 'delete it', alter: 'change its partitions', configure: 'change its configs (it must stay compacted)' } as const;

export function protectedTopicProblem(name: string, action: keyof typeof REFUSED, instance?: string): MappedProblem {
  return {
    problem: {
      type: problemType('state-topic-protected'),
      title: 'State topic protected',
      status: 409,
      detail: `${name} is the gateway's state topic (reassignment records and the throttle ownership ledger); the gateway refuses to ${REFUSED[action]}. Losing it leaves the throttles of running moves behind: see the README, "Recovering the state topic".`,
      ...(instance !== undefined && { instance }),
    },
  };
}
