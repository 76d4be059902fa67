// Readiness (/readyz): can this instance serve? Kafka answers a ping and, when reassignments
// are on, the state topic is readable. Liveness (/healthz) never asks Kafka, so it is not here.
import { KafkaRequestError } from '../kafka/errors.js';
import type { KafkaGateway } from '../kafka/types.js';
import type { StateHealth } from '../state/store.js';
import type { KafkaFailure } from './errors.js';

/** The state topic as readiness reads it (the reassignment runtime's store). */
export interface StateReadiness {
  refresh(): Promise<unknown>;
  health(): StateHealth;
  readonly topic: string;
}

export type Readiness =
  | { kind: 'ready' }
  /** Kafka answered the ping with an error (or the Kafka layer gave up on it). */
  | { kind: 'kafka-failed'; failure: KafkaFailure }
  /** The ping did not finish within the backstop, or failed some other way. */
  | { kind: 'kafka-timeout' | 'kafka-unavailable'; detail: string }
  | { kind: 'state-topic-missing' | 'state-store-unavailable'; detail: string };

export class ReadinessService {
  readonly #kafka: KafkaGateway;
  readonly #stateStore: StateReadiness | undefined;

  constructor(kafka: KafkaGateway, stateStore?: StateReadiness) {
    this.#kafka = kafka;
    this.#stateStore = stateStore;
  }

  /**
   * `timeoutMs`: backstop for the Kafka probe, so a hung probe cannot hang the readiness check.
   * Keep it above the Kafka layer's own ping timeout, whose error is more informative.
   */
  async check(timeoutMs: number): Promise<Readiness> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      await Promise.race([
        this.#kafka.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            reject(new Error(`Kafka ping exceeded ${timeoutMs} ms`));
          }, timeoutMs);
        }),
      ]);
      const stateStore = this.#stateStore;
      if (stateStore) {
        // Reading it is cheap (Metadata + ListOffsets, then only new records) and proves the
        // instance can act on its state: a gateway that cannot is not ready, with the reason.
        let stateTimer: NodeJS.Timeout | undefined;
        const ok = await Promise.race([
          stateStore.refresh().then(
            () => true,
            () => false,
          ),
          new Promise<false>((resolve) => (stateTimer = setTimeout(() => resolve(false), timeoutMs))),
        ]);
        clearTimeout(stateTimer);
        const h = stateStore.health();
        if (!ok || h.status !== 'ok') {
          return {
            kind: h.status === 'missing' ? 'state-topic-missing' : 'state-store-unavailable',
            detail: h.status === 'ok' ? `The state topic ${stateStore.topic} could not be read within ${timeoutMs} ms.` : h.reason,
          };
        }
      }
      return { kind: 'ready' };
    } catch (err) {
      // Readiness is binary: whatever the failure, it is not ready, with the reason. Only a
      // Kafka request failure names a Kafka error; our own backstop timeout does not.
      if (err instanceof KafkaRequestError) return { kind: 'kafka-failed', failure: err };
      return { kind: timedOut ? 'kafka-timeout' : 'kafka-unavailable', detail: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}
