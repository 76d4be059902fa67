// One heavy request at a time across every simulated broker, each on a turn of the event loop
// of its own, so that light requests are answered in between.
//
// Why: the simulator answers all its brokers on one thread. Each pass of a gateway moving
// 100,000 partitions sends a ListPartitionReassignments of every move, a Metadata of the
// moving topics and a DescribeLogDirs of ~25,000 partitions to each of 12 brokers, all at
// once. Node runs every socket made readable in one poll phase back to back, so a ListOffsets
// of one partition (what every summary GET of the gateway asks the state topic's leader)
// waited behind all of them: 100-320 ms of the simulator's event loop in one block (a drift
// probe and a CPU profile of bench:scale's process), where Kafka's brokers answer in parallel
// and on several request handler threads each (num.io.threads, 8 by default), so a small
// request never waits for a dozen big ones. Here a heavy request starts only on an immediate
// and only when no other is in progress, so the sockets are polled again between two of them;
// light ones go through at once. Requests on one connection still run one at a time in order
// (server.ts), as in Kafka.
//
// Heavy: a frame over HEAVY_FRAME_BYTES (its decoding alone takes time: a 100,000-partition
// AlterPartitionReassignments is ~2 MB), or a request its handler calls heavy (ApiHandler.heavy:
// those whose answer grows with the cluster when they ask for everything or for many items).

/** Frames larger than this are heavy whatever they ask. */
export const HEAVY_FRAME_BYTES = 64 * 1024;

/** Partitions named above which a request is heavy (handlers' heavy()). */
export const HEAVY_ITEMS = 1000;

/** Topics (Metadata) or config resources (DescribeConfigs) named above which a request is heavy. */
export const HEAVY_TOPICS = 10;

export class RequestTurns {
  #busy = false;
  #scheduled = false;
  readonly #waiting: (() => void)[] = [];

  /**
   * Resolves when this heavy request may run, always on an immediate (a turn's check phase), never
   * in the poll phase that read it: Node runs the data callbacks of every socket readable at once
   * back to back, and a heavy request answered inside its own callback would hold the light ones
   * read in the same poll behind it. Call release() once it is answered (or gone).
   */
  acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  /** The heavy request in progress is done: the next one starts on a later turn of the event loop. */
  release(): void {
    this.#busy = false;
    this.#schedule();
  }

  /** Heavy requests waiting for their turn (tests). */
  get waiting(): number {
    return this.#waiting.length;
  }

  #schedule(): void {
    if (this.#busy || this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    // An immediate queued during a check phase runs in the next turn, after the sockets are polled.
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#busy) return;
      const next = this.#waiting.shift();
      if (next === undefined) return;
      this.#busy = true;
      next();
    });
  }
}
