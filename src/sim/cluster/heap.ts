// Binary min-heaps for the replication tracker (./replication.ts): an indexed one whose items
// can be removed from the middle (a copy leaving its rate class), and a plain one used with
// lazy deletion (rate classes rescheduled by version).

/** An item of an IndexedHeap remembers where it sits, so removal is O(log n). */
export interface HeapItem {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  constructor(private readonly key: (item: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  remove(item: T): void {
    const i = item.heapIndex;
    if (i < 0 || this.items[i] !== item) return;
    const last = this.items.pop()!;
    item.heapIndex = -1;
    if (last === item) return;
    this.items[i] = last;
    last.heapIndex = i;
    this.down(i);
    this.up(last.heapIndex);
  }

  values(): readonly T[] {
    return this.items;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    const k = this.key(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.key(items[parent]) <= k) break;
      items[i] = items[parent];
      items[i].heapIndex = i;
      i = parent;
    }
    items[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    const k = this.key(item);
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.key(items[r]) < this.key(items[l]) ? r : l;
      if (this.key(items[child]) >= k) break;
      items[i] = items[child];
      items[i].heapIndex = i;
      i = child;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}

/** A min-heap of (key, value, stamp) entries; stale entries are the caller's to skip (by stamp). */
export class MinHeap<V> {
  private readonly keys: number[] = [];
  private readonly vals: V[] = [];
  private readonly stamps: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  peekKey(): number | undefined {
    return this.keys[0];
  }

  peekValue(): V | undefined {
    return this.vals[0];
  }

  peekStamp(): number | undefined {
    return this.stamps[0];
  }

  push(key: number, value: V, stamp = 0): void {
    const { keys, vals, stamps } = this;
    let i = keys.length;
    keys.push(key);
    vals.push(value);
    stamps.push(stamp);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      vals[i] = vals[parent];
      stamps[i] = stamps[parent];
      i = parent;
    }
    keys[i] = key;
    vals[i] = value;
    stamps[i] = stamp;
  }

  pop(): V | undefined {
    const { keys, vals, stamps } = this;
    if (keys.length === 0) return undefined;
    const top = vals[0];
    const lastKey = keys.pop()!;
    const lastVal = vals.pop()!;
    const lastStamp = stamps.pop()!;
    const n = keys.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const child = r < n && keys[r] < keys[l] ? r : l;
        if (keys[child] >= lastKey) break;
        keys[i] = keys[child];
        vals[i] = vals[child];
        stamps[i] = stamps[child];
        i = child;
      }
      keys[i] = lastKey;
      vals[i] = lastVal;
      stamps[i] = lastStamp;
    }
    return top;
  }

  clear(): void {
    this.keys.length = 0;
    this.vals.length = 0;
    this.stamps.length = 0;
  }
}
