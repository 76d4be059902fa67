// Lists of `partition:broker` entries as the throttle ledger (throttle-ledger.ts) and its
// ownership views (throttle-ownership.ts) handle them: unions, sets and order checks, memoised per
// (frozen) array because the same lists come back pass after pass.

export function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * a ∪ b, deduplicated and sorted as strings. Linear when both are already sorted and
 * deduplicated (the usual case: ledger lists and merged demands are kept that way); answers
 * `a` itself when b adds nothing to it (callers compare ledger values by identity first).
 */
export function sortedUnion(a: readonly string[], b: readonly string[]): readonly string[] {
  if (!isSortedUnique(a) || !isSortedUnique(b)) return [...new Set([...a, ...b])].sort();
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x < y) {
      out.push(x);
      i++;
    } else if (y < x) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  if (out.length === a.length) return a; // b ⊆ a
  if (out.length === b.length) return b; // a ⊆ b
  return out;
}

/** Strictly ascending as strings (UTF-16 code units, the order of Array.prototype.sort). Memoised per array. */
export function isSortedUnique(xs: readonly string[]): boolean {
  if (xs.length < 2) return true;
  const known = sortedArrays.get(xs);
  if (known !== undefined) return known;
  let ok = true;
  for (let i = 1; i < xs.length; i++) {
    if (!(xs[i - 1] < xs[i])) {
      ok = false;
      break;
    }
  }
  // Only frozen arrays can be remembered (anything else could change after the check).
  if (Object.isFrozen(xs)) sortedArrays.set(xs, ok);
  return ok;
}

const sortedArrays = new WeakMap<readonly string[], boolean>();
/** Sets of list entries, memoised per (frozen) array: demands and parsed values repeat every pass. */
const entrySets = new WeakMap<readonly string[], ReadonlySet<string>>();
export function setOf(xs: readonly string[]): ReadonlySet<string> {
  const known = entrySets.get(xs);
  if (known) return known;
  const set = new Set(xs);
  if (Object.isFrozen(xs)) entrySets.set(xs, set);
  return set;
}

export function sameSet(a: readonly string[], b: readonly string[] | null): boolean {
  if (b === null) return false;
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/** Sorted copies of unsorted parsed entries, per (frozen) parsed array: the same value is listed GET after GET. */
const sortedCopies = new WeakMap<readonly string[], readonly string[]>();
export function sortedEntries(entries: readonly string[]): readonly string[] {
  if (isSortedUnique(entries)) return entries;
  const known = sortedCopies.get(entries);
  if (known) return known;
  const sorted = Object.freeze([...entries].sort());
  if (Object.isFrozen(entries)) sortedCopies.set(entries, sorted);
  return sorted;
}
