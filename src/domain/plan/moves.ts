// Where a replica goes, and which one goes: the destination search and its scoring, shared by the
// goals (goals.ts). Best candidate, in this order: a rack the partition does not use yet
// (rackAware), the fewest replicas of the same topic, the least total load (replica count, or
// bytes with weight=bytes), the lowest broker id.
import type { Model, Part } from './model.js';

export function replace(m: Model, p: Part, i: number, to: number, tc: Int32Array): void {
  const from = p.target[i];
  p.target[i] = to;
  m.count[from]--;
  m.bytes[from] -= p.bytes;
  m.count[to]++;
  m.bytes[to] += p.bytes;
  tc[from]--;
  tc[to]++;
}

/** Rack rule for putting `to` at position i (-1 = added): the partition must not end on fewer distinct racks. */
export function rackAllows(m: Model, p: Part, i: number, to: number): boolean {
  if (!m.rackAware) return true;
  const before = new Set<string>();
  const after = new Set<string>([m.rackKey[to]]);
  for (let j = 0; j < p.target.length; j++) {
    const r = m.rackKey[p.target[j]];
    before.add(r);
    if (j !== i) after.add(r);
  }
  return after.size >= before.size;
}

/**
 * Best destination for position i of p (-1 = a new replica): eligible, not in p, not removed;
 * new rack first (rackAware; `requireNewRack` makes it mandatory), then fewest replicas of the
 * topic, then least load, then lowest id.
 */
export function pickDestination(
  m: Model,
  p: Part,
  i: number,
  tc: Int32Array,
  removed: ReadonlySet<number> | null,
  requireNewRack = false,
): number {
  let usedRacks: Set<string> | null = null;
  if (m.rackAware) {
    usedRacks = new Set();
    for (let j = 0; j < p.target.length; j++) if (j !== i) usedRacks.add(m.rackKey[p.target[j]]);
  }
  let best = -1;
  let bestNew = false;
  for (const b of m.eligibleList) {
    if (p.target.includes(b) || removed?.has(b)) continue;
    const isNew = usedRacks ? !usedRacks.has(m.rackKey[b]) : true;
    if (requireNewRack && !isNew) continue;
    if (best >= 0 && bestNew && !isNew) continue;
    if (best < 0 || (isNew && !bestNew) || better(m, b, best, tc)) {
      best = b;
      bestNew = isNew;
    }
  }
  return best;
}

/** Like pickDestination, among brokers below their per-topic target, keeping the rack count. */
export function pickUnder(m: Model, p: Part, i: number, tc: Int32Array, target: Int32Array): number {
  let best = -1;
  for (const b of m.eligibleList) {
    if (tc[b] >= target[b] || p.target.includes(b) || !rackAllows(m, p, i, b)) continue;
    if (best < 0 || better(m, b, best, tc)) best = b;
  }
  return best;
}

export function better(m: Model, a: number, b: number, tc: Int32Array): boolean {
  if (m.weight === 'bytes') {
    if (m.bytes[a] !== m.bytes[b]) return m.bytes[a] < m.bytes[b];
    if (tc[a] !== tc[b]) return tc[a] < tc[b];
  } else {
    if (tc[a] !== tc[b]) return tc[a] < tc[b];
    if (m.count[a] !== m.count[b]) return m.count[a] < m.count[b];
  }
  return a < b;
}

/** Higher = better to drop: dead broker, not eligible, shares a rack, most replicas of the topic, most load. */
export function removalScore(m: Model, b: number, tc: Int32Array): number {
  return (
    (m.live[b] ? 0 : 4e12) + (m.eligible[b] ? 0 : 2e12) + tc[b] * 1e6 + (m.weight === 'bytes' ? m.bytes[b] / 1e9 : m.count[b]) + b / 1e9
  );
}

/** Replica to drop when lowering the factor: never the preferred leader while another can go. */
export function pickRemoval(m: Model, p: Part, tc: Int32Array): number {
  const racks = new Map<string, number>();
  for (const b of p.target) racks.set(m.rackKey[b], (racks.get(m.rackKey[b]) ?? 0) + 1);
  let pick = -1;
  let pickScore = -Infinity;
  for (let i = 1; i < p.target.length; i++) {
    const b = p.target[i];
    const score = removalScore(m, b, tc) + (m.rackAware && racks.get(m.rackKey[b])! > 1 ? 1e12 : 0);
    if (score > pickScore) {
      pick = i;
      pickScore = score;
    }
  }
  return pick < 0 ? p.target.length - 1 : pick;
}
