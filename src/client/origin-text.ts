// "Goal or plan" of a reassignment in words, for the console and the CLI (issue 33): the goal of
// the POST /plans answer it was started from (or the caller's label), "rollback of <id>", or
// "manual" for a hand-written body (and for reassignments recorded before origins were kept).

/** The fields the text needs; GET /reassignments' summaries and GET /reassignments/{id} have them. */
export interface OriginFields {
  origin?: { goal: string; description?: string };
  rollbackOf?: string;
}

/** `decommission`, `rebalance`, …, `rollback of r-…`, or `manual`. */
export function goalText(r: OriginFields): string {
  if (r.origin) return r.origin.goal;
  return r.rollbackOf ? `rollback of ${r.rollbackOf}` : 'manual';
}

/** goalText with the plan's description: `decommission (broker 3 emptied; 4 partitions changed; 4 replicas moved)`. */
export function goalLine(r: OriginFields): string {
  return r.origin?.description ? `${goalText(r)} (${r.origin.description})` : goalText(r);
}
