// A Map that tells observers what was put into it and taken out, synchronously, in the order
// it happened. The store keeps its view of reassignments in one: every version of a record
// the store applies (read from the log in offset order, or its own write once acknowledged)
// passes through set(), so an observer sees every change without the store naming who
// listens (src/events/reassignment-changes.ts turns them into state-change events).
//
// Observers run inside the store's apply: they must be cheap (O(1) per call: never walk a
// record's partitions), must not read the store, and their errors are swallowed (a broken
// listener must not break the view).

export interface MapObserver<K, V> {
  /** `previous`: the value the key held before (undefined: new key). */
  set?(key: K, value: V, previous: V | undefined): void;
  delete?(key: K, previous: V): void;
  /** Everything removed at once (a reset of the view: it is re-read from the log start). */
  clear?(): void;
}

export class ObservedMap<K, V> extends Map<K, V> {
  // Not a private field: Map's constructor may call set() before subclass fields exist.
  protected observers: Set<MapObserver<K, V>> | undefined;

  /** Starts telling `observer`; returns the function that stops. */
  observe(observer: MapObserver<K, V>): () => void {
    (this.observers ??= new Set()).add(observer);
    return () => void this.observers?.delete(observer);
  }

  override set(key: K, value: V): this {
    const previous = super.get(key);
    super.set(key, value);
    if (this.observers) for (const o of this.observers) guarded(() => o.set?.(key, value, previous));
    return this;
  }

  override delete(key: K): boolean {
    if (!super.has(key)) return false;
    const previous = super.get(key) as V;
    super.delete(key);
    if (this.observers) for (const o of this.observers) guarded(() => o.delete?.(key, previous));
    return true;
  }

  override clear(): void {
    super.clear();
    if (this.observers) for (const o of this.observers) guarded(() => o.clear?.());
  }
}

function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // An observer's failure is its own: the view stays as the log says.
  }
}
