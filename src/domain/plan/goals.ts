// The goals of a plan, each on the model (model.ts): decommission, replication factor, rack
// repair, rebalance by replica counts or by bytes, and the preferred leaders evened out at the end
// by reordering replicas (no data moves). Minimal movement: a replica moves only when the goal
// needs it to, and takes the place of the one it replaces in the replica list.
import { assignCeilSlotsSteps } from './ceil-slots.js';
import { byName, topicCounts, type Model, type Part } from './model.js';
import { pickDestination, pickRemoval, pickUnder, rackAllows, removalScore, replace } from './moves.js';
import { counter, type Steps } from '../steps.js';

/** Every replica on a removed broker goes to the best destination; nothing else moves. */
export function* decommission(m: Model, removed: ReadonlySet<number>): Steps<void> {
  const tc = new Int32Array(m.ids.length);
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti];
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      for (let i = 0; i < p.target.length; i++) {
        const from = p.target[i];
        if (!removed.has(from)) continue;
        const to = pickDestination(m, p, i, tc, removed);
        if (to < 0) continue; // cannot happen once NOT_ENOUGH_BROKERS passed; checkGoal reports it
        replace(m, p, i, to, tc);
      }
    }
    yield;
  }
}

/** Adds replicas on the best brokers, or drops the least useful ones; existing replicas stay. */
export function* replicationFactor(m: Model, rf: number): Steps<void> {
  const tc = new Int32Array(m.ids.length);
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti];
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      while (p.target.length < rf) {
        const to = pickDestination(m, p, -1, tc, null);
        if (to < 0) break;
        p.target.push(to);
        m.count[to]++;
        m.bytes[to] += p.bytes;
        tc[to]++;
      }
      while (p.target.length > rf) {
        const i = pickRemoval(m, p, tc);
        const b = p.target[i];
        p.target.splice(i, 1);
        m.count[b]--;
        m.bytes[b] -= p.bytes;
        tc[b]--;
      }
    }
    yield;
  }
}

/** Partitions whose replicas share a rack while racks with room exist: one replica moved per fix. */
export function* rackRepair(m: Model): Steps<void> {
  if (!m.rackAware) {
    m.warnings.push({ code: 'NO_RACKS', message: 'rack-repair needs brokers with racks (and rackAware not false): nothing to repair.' });
    return;
  }
  const tc = new Int32Array(m.ids.length);
  const availableRacks = new Set(m.eligibleList.map((b) => m.rackKey[b]));
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti];
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      for (;;) {
        const used = new Map<string, number>();
        for (const b of p.target) used.set(m.rackKey[b], (used.get(m.rackKey[b]) ?? 0) + 1);
        if (![...availableRacks].some((r) => !used.has(r))) break;
        // The replica to move: on a shared rack, not the preferred leader, on a dead broker first, then the most loaded.
        let pick = -1;
        for (let i = 0; i < p.target.length; i++) {
          const b = p.target[i];
          if (used.get(m.rackKey[b])! < 2) continue;
          if (i === 0 && p.target.slice(1).some((o) => m.rackKey[o] === m.rackKey[b])) continue; // another replica of that rack can go
          if (pick < 0 || removalScore(m, p.target[i], tc) > removalScore(m, p.target[pick], tc)) pick = i;
        }
        if (pick < 0) break;
        const to = pickDestination(m, p, pick, tc, null, true);
        if (to < 0) break;
        replace(m, p, pick, to, tc);
      }
    }
    yield;
  }
}

/**
 * Count rebalance, topic by topic: each topic's replicas on the brokers end at floor or ceil of
 * n/k per broker. Without a topic filter the broker totals must end even too: the ceil slots are
 * then chosen for all topics at once, spread evenly over the brokers and kept where a broker
 * already holds more than floor as often as possible (ceil-slots.ts; the fewest moves). With a
 * filter each topic alone: ceil slots first to brokers already above floor, then to the lowest
 * running totals. A last pass evens the totals where racks blocked a move.
 */
export function* rebalanceCounts(m: Model, evenTotals: boolean): Steps<void> {
  const k = m.eligibleList.length;
  if (k === 0) return;
  const K = m.ids.length;
  // Running totals on the brokers being evened: the projection of the end state.
  const projected = Float64Array.from(m.count);
  const perTopic = new Map<number, { tc: Int32Array; floor: number; ceil: number }>();
  const tc = new Int32Array(K);
  const target = new Int32Array(K);
  const rackBlocked = new Set<string>();

  // Counts per in-scope topic, and (evenTotals) the ceil slots of all topics together.
  const owns = new Map<number, Int32Array>();
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const own = new Int32Array(K);
    topicCounts(m.byTopic[ti], own);
    owns.set(ti, own);
  }
  const ceilSlots = new Map<number, Int32Array>();
  if (evenTotals) {
    const order = [...owns.keys()];
    const input = order.map((ti) => {
      const own = owns.get(ti)!;
      const counts = new Int32Array(k);
      let n = 0;
      m.eligibleList.forEach((b, i) => ((counts[i] = own[b]!), (n += own[b])));
      let bytes = 0;
      for (const p of m.byTopic[ti]) bytes += p.bytes;
      return { counts, floor: Math.floor(n / k), remainder: n % k, weight: bytes / Math.max(1, m.byTopic[ti].length) };
    });
    yield;
    const { slots } = yield* assignCeilSlotsSteps(k, input);
    order.forEach((ti, j) => ceilSlots.set(ti, slots[j]));
  }

  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti];
    const own = owns.get(ti)!;
    let n = 0;
    for (const b of m.eligibleList) n += own[b];
    if (n === 0) continue;
    const floor = Math.floor(n / k);
    const r = n % k;
    target.fill(0);
    const slots = ceilSlots.get(ti);
    if (slots) {
      for (const b of m.eligibleList) target[b] = floor;
      for (const i of slots) target[m.eligibleList[i]]++;
    } else {
      // Ceil slots: brokers above floor first, then the lowest running totals.
      const order = [...m.eligibleList].sort((a, b) => {
        const above = Number(own[b] > floor) - Number(own[a] > floor);
        if (above !== 0) return above;
        // Among brokers above floor any r save the same one move: the lowest totals keep ceil.
        return projected[a] - projected[b] || a - b;
      });
      order.forEach((b, i) => (target[b] = floor + (i < r ? 1 : 0)));
    }
    for (const b of m.eligibleList) projected[b] += target[b] - own[b];

    tc.set(own);
    // Sources shed their smallest partitions first (fewest bytes moved).
    const sources = m.eligibleList.filter((b) => own[b] > target[b]);
    for (const s of sources) {
      const candidates = list.filter((p) => p.free && p.target.includes(s)).sort((a, b) => a.bytes - b.bytes || a.partition - b.partition);
      for (const p of candidates) {
        if (tc[s] <= target[s]) break;
        const i = p.target.indexOf(s);
        const to = pickUnder(m, p, i, tc, target);
        if (to < 0) continue;
        replace(m, p, i, to, tc);
      }
      if (tc[s] > target[s]) rackBlocked.add(m.topicNames[ti]);
    }
    perTopic.set(ti, { tc: Int32Array.from(tc), floor, ceil: floor + (r > 0 ? 1 : 0) });
    yield;
  }
  if (rackBlocked.size > 0) {
    const names = [...rackBlocked].sort(byName);
    m.warnings.push({
      code: 'GOAL_NOT_REACHED',
      message: `${names.length} topic(s) could not be spread evenly${m.rackAware ? ' without putting two replicas of a partition on one rack' : ''}: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}.`,
    });
  }
  if (evenTotals) yield* evenBrokerTotals(m, perTopic);
}

/**
 * Evens the broker totals with moves that keep each topic within floor..ceil: a topic at ceil on
 * an over-full broker and at floor on an under-full one moves one replica across.
 */
function* evenBrokerTotals(m: Model, perTopic: Map<number, { tc: Int32Array; floor: number; ceil: number }>): Steps<void> {
  const k = m.eligibleList.length;
  let n = 0;
  for (const b of m.eligibleList) n += m.count[b];
  const floor = Math.floor(n / k);
  const r = n % k;
  // The r brokers holding the most keep ceil (fewest moves).
  const order = [...m.eligibleList].sort((a, b) => m.count[b] - m.count[a] || a - b);
  const goal = new Int32Array(m.ids.length);
  order.forEach((b, i) => (goal[b] = floor + (i < r ? 1 : 0)));
  const topics = [...perTopic.keys()].filter((ti) => perTopic.get(ti)!.ceil > perTopic.get(ti)!.floor);
  const tick = counter(256);
  for (const s of order) {
    if (m.count[s] <= goal[s]) continue;
    for (const ti of topics) {
      if (m.count[s] <= goal[s]) break;
      if (tick()) yield;
      const t = perTopic.get(ti)!;
      if (t.tc[s] !== t.ceil) continue;
      for (const d of m.eligibleList) {
        if (m.count[d] >= goal[d] || t.tc[d] !== t.floor) continue;
        const p = m.byTopic[ti].find(
          (x) => x.free && x.target.includes(s) && !x.target.includes(d) && rackAllows(m, x, x.target.indexOf(s), d),
        );
        if (!p) continue;
        replace(m, p, p.target.indexOf(s), d, t.tc);
        break;
      }
    }
  }
}

/**
 * Bytes rebalance: the heaviest broker hands a replica to the lightest until max - min is at most
 * the largest partition (closer is not possible in general), preferring the largest replica that
 * does not overshoot (fewest moves), then the smallest that still narrows the gap.
 */
export function* rebalanceBytes(m: Model): Steps<void> {
  const brokers = m.eligibleList;
  if (brokers.length < 2) return;
  let largest = 0;
  for (const p of m.parts) if (p.free) largest = Math.max(largest, p.bytes);
  const held = new Map<number, Part[]>();
  for (const b of brokers) held.set(b, []);
  for (const p of m.parts) if (p.free) for (const b of p.target) held.get(b)?.push(p);
  for (const list of held.values()) list.sort((a, b) => a.bytes - b.bytes || a.topic - b.topic || a.partition - b.partition);
  const tc = new Int32Array(m.ids.length); // topic counts are not balanced by bytes; kept for replace()
  const limit = m.parts.length * 2 + 10;
  const tick = counter(256);
  for (let step = 0; step < limit; step++) {
    if (tick()) yield;
    let h = brokers[0];
    let l = brokers[0];
    for (const b of brokers) {
      if (m.bytes[b] > m.bytes[h]) h = b;
      if (m.bytes[b] < m.bytes[l]) l = b;
    }
    const gap = m.bytes[h] - m.bytes[l];
    if (gap <= largest || gap <= 0) return;
    const list = held.get(h)!;
    // Largest replica not above gap/2 whose partition can take l.
    let chosen = -1;
    let hi = upperIndex(list, gap / 2);
    for (let i = hi; i >= 0; i--)
      if (movable(m, list[i], h, l)) {
        chosen = i;
        break;
      }
    if (chosen < 0) {
      for (let i = hi + 1; i < list.length && list[i].bytes < gap; i++)
        if (movable(m, list[i], h, l)) {
          chosen = i;
          break;
        }
    }
    if (chosen < 0) {
      m.warnings.push({
        code: 'GOAL_NOT_REACHED',
        message: `Broker ${m.ids[h]} cannot hand a replica to broker ${m.ids[l]} without breaking a replica or rack constraint.`,
      });
      return;
    }
    const p = list[chosen];
    list.splice(chosen, 1);
    replace(m, p, p.target.indexOf(h), l, tc);
    const dest = held.get(l)!;
    dest.splice(upperIndex(dest, p.bytes) + 1, 0, p);
    hi = 0;
  }
}

function movable(m: Model, p: Part, from: number, to: number): boolean {
  return !p.target.includes(to) && rackAllows(m, p, p.target.indexOf(from), to);
}

/** Index of the last element with bytes <= limit (-1 if none); list sorted ascending by bytes. */
function upperIndex(list: Part[], limit: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].bytes <= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Preferred leaders even per broker, by moving a partition's replica to the front of its list.
 * Greedy in two passes: brokers above ceil give leaderships away, then brokers below floor take
 * some from brokers above floor. Partitions out of scope or moving keep their order.
 */
export function* balancePreferredLeaders(m: Model): Steps<void> {
  const K = m.ids.length;
  const leaders = new Int32Array(K);
  let n = 0;
  for (const p of m.parts) {
    const b = p.target[0];
    if (b !== undefined && m.eligible[b]) {
      leaders[b]++;
      n++;
    }
  }
  const k = m.eligibleList.length;
  if (k === 0) return;
  const floor = Math.floor(n / k);
  const ceil = floor + (n % k > 0 ? 1 : 0);
  // Pass 1: above ceil -> the replica whose broker leads least (strictly below ceil).
  // Pass 2: below floor <- a leader above floor.
  const tick = counter(4096);
  for (const pass of [1, 2]) {
    for (const p of m.parts) {
      if (tick()) yield;
      if (!p.free || p.target.length < 2) continue;
      const l = p.target[0];
      if (!m.eligible[l]) continue;
      let best = -1;
      for (let i = 1; i < p.target.length; i++) {
        const b = p.target[i];
        if (!m.eligible[b] || !m.live[b]) continue;
        if (best < 0 || leaders[b] < leaders[p.target[best]]) best = i;
      }
      if (best < 0) continue;
      const b = p.target[best];
      const give = pass === 1 ? leaders[l] > ceil && leaders[b] < ceil : leaders[b] < floor && leaders[l] > floor;
      if (!give) continue;
      p.target.splice(best, 1);
      p.target.unshift(b);
      leaders[l]--;
      leaders[b]++;
    }
  }
}
