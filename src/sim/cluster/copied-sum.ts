// The bytes the copies of one rate class hold, summed without visiting every copy: what
// DescribeLogDirs reports as a broker's used bytes while 100,000 replicas copy into it. Used by
// the replication tracker (replication.ts) per class and group; see CopiedSum.

/** What a CopiedSum reads and keeps on a member (a Copy of replica-copies.ts). */
export interface SummedCopy {
  /** Bytes copied as of `mark` on the class's accumulator. */
  readonly copied: number;
  readonly mark: number;
  /** Its group in the sum while it is a member. */
  phase: PhaseGroup | null;
}

/** Buckets of the fractional parts in a CopiedSum. */
const PHASE_BUCKETS = 256;
/**
 * How far (relative to the magnitudes involved) a member's decomposed value may be from the one
 * copiedBytes computes: three roundings there, two here, each under 2^-53 of the magnitudes, so
 * under 2^-50.6 in all; 2^-46 leaves a margin of 25.
 */
const PHASE_MARGIN = 2 ** -46;
/** Below this, sums and differences of whole numbers are exact in a double (with room to spare). */
const EXACT_WHOLES = 2 ** 51;

/**
 * The members of a CopiedSum with the same copied and mark: they report the same bytes, so they
 * are counted, and computed, once. Members that joined their class at one instant (the 100,000
 * copies one request starts) are one group.
 */
export interface PhaseGroup {
  readonly copied: number;
  readonly mark: number;
  /** copied - mark + 1e-6 as its whole and fractional parts (see CopiedSum). */
  readonly whole: number;
  readonly frac: number;
  readonly bucket: number;
  /** copied and mark are whole numbers (below EXACT_WHOLES): exact for a whole accumulator. */
  readonly integral: boolean;
  count: number;
  /** Its index in its bucket's list. */
  pos: number;
}

/**
 * The bytes the members of one rate class in one group hold, summed as copiedBytes reports each
 * (rounded down), without visiting every member.
 *
 * Member i reports floor(copied_i + (X - mark_i) + 1e-6), X the class's accumulator now. With
 * copied_i - mark_i + 1e-6 = k_i + f_i (k_i whole, 0 <= f_i < 1, fixed while it is a member) that
 * is k_i + floor(X) + [f_i >= t], t = 1 - frac(X). So the sum is Σ(k_i + floor(X)) plus how many
 * members have f_i >= t; members are kept in PHASE_BUCKETS buckets by f_i, and that count is the
 * number in the buckets above t: O(buckets) per read. Only the bucket(s) around t are looked
 * into, group by group (members with the same copied and mark, PhaseGroup): rounding puts the
 * expression copiedBytes evaluates a few ulps from the decomposition, which matters only for a
 * group whose f_i is that close to t, and such a group is computed with copiedBytes's own
 * expression. So the sum is the per-copy walk's, to the byte.
 *
 * Whole-byte rates (a throttle of 10 MB/s shared by 10 copies: 1,000 bytes a millisecond) make
 * X, every mark and every copied count whole numbers, every f_i 1e-6 and t exactly 1: every
 * group sits at the boundary, however far apart they joined. For those the decomposition is
 * exact (k_i = copied_i - mark_i, and copiedBytes rounds copied_i + X - mark_i + 1e-6 down to
 * that same whole number), so they are not looked into.
 *
 * Σ(k_i + base) is kept for a whole `base` moved to floor(X) at every add and read: k_i alone is
 * of the order of the accumulator (it grows for the class's whole life), k_i + floor(X) of the
 * bytes the member holds, so the running sum stays exact (far below 2^53).
 * Exported for its tests only.
 */
export class CopiedSum {
  size = 0;
  private base = 0;
  /** Σ (whole + base) over the members. */
  private wholes = 0;
  /** Largest |copied| + |mark| of a member since the sum was last empty (the rounding bound). */
  private magnitude = 0;
  /** Members per bucket. */
  private readonly counts = new Int32Array(PHASE_BUCKETS);
  /** The groups of each bucket, integral ones apart (never looked into when X is whole). */
  private readonly buckets = new Array<PhaseGroup[] | undefined>(PHASE_BUCKETS);
  private readonly integralBuckets = new Array<PhaseGroup[] | undefined>(PHASE_BUCKETS);
  /** The groups by mark, then copied. */
  private readonly groups = new Map<number, Map<number, PhaseGroup>>();

  /** A copy joins its class (copied and mark set), `acc` the class's accumulator now. */
  add(c: SummedCopy, acc: number): void {
    let byCopied = this.groups.get(c.mark);
    if (byCopied === undefined) this.groups.set(c.mark, (byCopied = new Map<number, PhaseGroup>()));
    let g = byCopied.get(c.copied);
    if (g === undefined) {
      const q = c.copied - c.mark + 1e-6;
      const whole = Math.floor(q);
      const frac = q - whole; // exact
      const bucket = Math.floor(frac * PHASE_BUCKETS);
      const integral =
        Number.isInteger(c.copied) && Number.isInteger(c.mark) && Math.abs(c.copied) < EXACT_WHOLES && Math.abs(c.mark) < EXACT_WHOLES;
      const lists = integral ? this.integralBuckets : this.buckets;
      let list = lists[bucket];
      if (list === undefined) lists[bucket] = list = [];
      g = { copied: c.copied, mark: c.mark, whole, frac, bucket, integral, count: 0, pos: list.length };
      list.push(g);
      byCopied.set(c.copied, g);
      const magnitude = Math.abs(c.copied) + Math.abs(c.mark);
      if (magnitude > this.magnitude) this.magnitude = magnitude;
    }
    g.count++;
    c.phase = g;
    this.rebase(Math.floor(acc));
    this.wholes += g.whole + this.base;
    this.size++;
    this.counts[g.bucket]++;
  }

  remove(c: SummedCopy): void {
    const g = c.phase!;
    c.phase = null;
    this.wholes -= g.whole + this.base;
    this.size--;
    this.counts[g.bucket]--;
    if (--g.count === 0) {
      const list = (g.integral ? this.integralBuckets : this.buckets)[g.bucket]!;
      const last = list.pop()!;
      if (last !== g) {
        list[g.pos] = last;
        last.pos = g.pos;
      }
      const byCopied = this.groups.get(g.mark)!;
      byCopied.delete(g.copied);
      if (byCopied.size === 0) this.groups.delete(g.mark);
    }
    if (this.size === 0) {
      this.wholes = 0;
      this.magnitude = 0;
    }
  }

  /** Σ floor(copied + (x - mark) + 1e-6) over the members, x the class accumulator now. */
  bytes(x: number): number {
    if (this.size === 0) return 0;
    const fx = Math.floor(x);
    this.rebase(fx);
    const t = 1 - (x - fx);
    const wholeX = fx === x && Math.abs(x) < EXACT_WHOLES;
    const margin = PHASE_MARGIN * (Math.abs(x) + this.magnitude + 1);
    const lo = Math.floor((t - margin) * PHASE_BUCKETS);
    const hi = Math.floor((t + margin) * PHASE_BUCKETS);
    if (hi - lo + 1 >= PHASE_BUCKETS) {
      // Magnitudes near 2^45 bytes and more: too close to call by buckets, every group exactly.
      let sum = 0;
      for (const lists of [this.buckets, this.integralBuckets]) {
        for (const list of lists) if (list) for (const g of list) sum += Math.floor(g.copied + (x - g.mark) + 1e-6) * g.count;
      }
      return sum;
    }
    // Buckets from `first` up hold f >= t only: each of their members reports one more.
    const first = Math.ceil(t * PHASE_BUCKETS);
    let sum = this.wholes;
    for (let j = first; j < PHASE_BUCKETS; j++) sum += this.counts[j];
    // The buckets within the margin of t (mod 1): their groups one by one, the counted one undone;
    // with X whole the integral groups are decomposed exactly (see above) and not looked into.
    for (let j = lo; j <= hi; j++) {
      const b = ((j % PHASE_BUCKETS) + PHASE_BUCKETS) % PHASE_BUCKETS;
      const counted = b >= first ? 1 : 0;
      sum += this.boundary(this.buckets[b], x, t, margin, counted);
      if (!wholeX) sum += this.boundary(this.integralBuckets[b], x, t, margin, counted);
    }
    return sum;
  }

  /** What the groups of a boundary bucket add to their decomposed bytes (`counted`: 1 above t). */
  private boundary(list: PhaseGroup[] | undefined, x: number, t: number, margin: number, counted: number): number {
    if (list === undefined) return 0;
    let sum = 0;
    for (const g of list) {
      const d = Math.abs(g.frac - t);
      if (Math.min(d, 1 - d) > margin) sum += ((g.frac >= t ? 1 : 0) - counted) * g.count;
      else sum += (Math.floor(g.copied + (x - g.mark) + 1e-6) - (g.whole + this.base) - counted) * g.count;
    }
    return sum;
  }

  private rebase(base: number): void {
    if (base === this.base) return;
    this.wholes += this.size * (base - this.base);
    this.base = base;
  }
}
