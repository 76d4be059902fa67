// What the cluster itself saw during a chaos run, recorded by the simulator as it happened (not
// by the gateway, whose own account is what is being checked): every AlterPartitionReassignments
// entry the controller applied (with the sender's client id) and every move that completed, in
// the order they happened, on the real clock (./clock.ts realNow: the same clock the harness
// stamps the HTTP answers with).
import type { AlteredReassignment, CompletedReassignment, Simulator } from '../../src/sim/index.js';
import { realNow } from './clock.js';

export type JournalEntry =
  | ({ kind: 'altered'; realAt: number } & Omit<AlteredReassignment, 'at'>)
  | { kind: 'completed'; realAt: number; topic: string; partition: number; replicas: number[] };

export type Altered = Extract<JournalEntry, { kind: 'altered' }>;

/** A move started: the partition was not being reassigned before the entry and is after it. */
export const isStart = (e: JournalEntry): e is Altered => e.kind === 'altered' && e.target !== null && !e.wasMoving && e.moving;

/** A move ended: completed, or cancelled / re-targeted to where it is. */
export const isEnd = (e: JournalEntry): boolean => e.kind === 'completed' || (e.kind === 'altered' && e.wasMoving && !e.moving);

export class Journal {
  readonly entries: JournalEntry[] = [];
  readonly #off: (() => void)[];

  constructor(sim: Simulator) {
    this.#off = [
      sim.onReassignmentAltered((a: AlteredReassignment) => {
        const { at: _at, ...rest } = a;
        this.entries.push({ kind: 'altered', realAt: realNow(), ...rest });
      }),
      sim.onReassignmentCompleted((c: CompletedReassignment) => {
        this.entries.push({ kind: 'completed', realAt: realNow(), topic: c.topic, partition: c.partition, replicas: [...c.replicas] });
      }),
    ];
  }

  close(): void {
    for (const off of this.#off) off();
  }

  /** Entries about one partition, in order. */
  of(topic: string, partition: number): JournalEntry[] {
    return this.entries.filter((e) => e.topic === topic && e.partition === partition);
  }
}

export function formatEntry(e: JournalEntry, t0: number): string {
  const at = `@${String(Math.round(e.realAt - t0)).padStart(4)} ms`;
  if (e.kind === 'completed') return `${at}  kafka: ${e.topic}-${e.partition} completed at [${e.replicas.join(',')}]`;
  const to = e.target === null ? '' : `->[${e.target.join(',')}]`;
  const what =
    e.target === null ? 'cancel' : !e.wasMoving && e.moving ? `start ${to}` : e.moving ? `re-send ${to}` : `${to} (done at once)`;
  const replicas = `replicas [${e.replicasBefore.join(',')}] -> [${e.replicas.join(',')}]`;
  return `${at}  kafka: ${e.topic}-${e.partition} ${what} by ${e.source?.clientId ?? '?'} (${replicas})`;
}
