// Freeing large buffers when their last reader is done with them, not when the collector gets
// to them. With 100,000 partitions moving, every reconcile pass reads megabytes of Kafka answers
// and builds columns of 100,000 numbers per broker (~90 MiB of Buffers and typed arrays every
// 5 s in the worker, measured). They are decoded over many event-loop turns, so they are old by
// the time they are garbage and wait for a full collection; V8 starts one for external memory
// only after it has grown ~64 MiB, so the process held tens of MiB of dead answers at any time
// (docs/worker-thread.md). Detaching the ArrayBuffer (ES2024 ArrayBuffer.prototype.transfer)
// frees its memory at once; every view of it reads as empty afterwards, so only memory that
// nothing reads again may be released: callers say why in each case.

/** Buffers smaller than this are left to the collector (they come from malloc's heap, not a mapping of their own). */
export const RELEASE_MIN_BYTES = 16 * 1024;

type Transferable = ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };

/**
 * Frees the memory of `view` now when `view` covers the whole of its ArrayBuffer (it is not a
 * slice of a larger or pooled allocation, whose other bytes others may use) and is at least
 * RELEASE_MIN_BYTES. Does nothing otherwise (and on a runtime without transfer).
 */
export function releaseNow(view: ArrayBufferView): void {
  const ab = view.buffer as Transferable;
  // As long as its ArrayBuffer: then it starts at 0 and no other view can see other bytes.
  if (view.byteLength < RELEASE_MIN_BYTES || view.byteLength !== ab.byteLength) return;
  ab.transfer?.(0);
}
