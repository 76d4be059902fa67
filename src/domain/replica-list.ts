// Replica lists of reassignment records, interned: one frozen array per distinct list.
//
// Why: a 100,000-partition reassignment holds two lists per partition (before and target):
// 200,000 arrays, ~23 MiB of the gateway's heap per record in a heap snapshot, held for as long
// as the record is kept. A cluster has few distinct lists (12 brokers at RF 3: at most 1,320),
// so sharing them costs a few lookups per partition and almost nothing to hold.
//
// Frozen: records are never changed in place (records.ts), and a shared list changed by
// mistake would change every partition that names it; frozen, such a write throws instead.
// Bounded like the partition keys (partition-key.ts): past MAX_INTERNED_LISTS lists the table
// starts again from empty; correctness never depends on identity.

/** Lists kept at most. */
export const MAX_INTERNED_LISTS = 100_000;

interface Node {
  list?: readonly number[];
  next?: Map<number, Node>;
}

let root: Node = {};
let count = 0;

/** The node under `node` for broker id `b`, made when missing. */
function child(node: Node, b: number): Node {
  let next = node.next?.get(b);
  if (next === undefined) {
    next = {};
    (node.next ??= new Map()).set(b, next);
    count++;
  }
  return next;
}

/** The big-endian INT32 at `bytes[pos...]`. */
const int32At = (bytes: Uint8Array, pos: number): number =>
  (bytes[pos] << 24) | (bytes[pos + 1] << 16) | (bytes[pos + 2] << 8) | bytes[pos + 3] | 0;

/** The shared, frozen list equal to `list` (element by element, in order). */
export function internReplicaList(list: readonly number[]): readonly number[] {
  if (count >= MAX_INTERNED_LISTS) resetInternedLists();
  let node = root;
  for (let i = 0; i < list.length; i++) node = child(node, list[i]);
  if (node.list === undefined) {
    // A copy: the caller's array may be its own to change.
    node.list = Object.freeze(list.slice());
    count++;
  }
  return node.list;
}

/**
 * The shared, frozen list of the `n` big-endian INT32s at `bytes[at...]` (a Kafka answer's
 * replica list): no array is made for a list seen before. Every reconcile pass reads three
 * lists per moving partition (replicas, adding, removing): at 100,000 moving, ~27 MiB of
 * arrays per pass that lived for the whole pass (allocation profile).
 */
export function internReplicaListAt(bytes: Uint8Array, at: number, n: number): readonly number[] {
  if (count >= MAX_INTERNED_LISTS) resetInternedLists();
  let node = root;
  for (let i = 0; i < n; i++) node = child(node, int32At(bytes, at + 4 * i));
  if (node.list === undefined) {
    const list = new Array<number>(n);
    for (let i = 0; i < n; i++) list[i] = int32At(bytes, at + 4 * i);
    node.list = Object.freeze(list);
    count++;
  }
  return node.list;
}

/** Differences already computed, per pair of shared lists (a cluster has few pairs). */
let differences = new WeakMap<readonly number[], Map<readonly number[], readonly number[]>>();

/**
 * `list - drop` (the ids of `list` not in `drop`, in `list`'s order) as a shared list, for two
 * lists internReplicaList gave: computed once per pair, so planning 100,000 moves makes no
 * array per partition for what each adds and removes.
 */
export function sharedDifference(list: readonly number[], drop: readonly number[]): readonly number[] {
  let byDrop = differences.get(list);
  if (byDrop === undefined) differences.set(list, (byDrop = new Map<readonly number[], readonly number[]>()));
  let out = byDrop.get(drop);
  if (out === undefined) {
    const kept: number[] = [];
    for (let i = 0; i < list.length; i++) if (!drop.includes(list[i])) kept.push(list[i]);
    out = internReplicaList(kept);
    byDrop.set(drop, out);
  }
  return out;
}

/** Lists and trie nodes held now (for tests). */
export function internedListCount(): number {
  return count;
}

/** Drops every interned list. */
export function resetInternedLists(): void {
  root = {};
  count = 0;
  differences = new WeakMap();
}
