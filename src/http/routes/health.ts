// Liveness and readiness. /healthz never touches Kafka, so a Kafka outage cannot make
// an orchestrator restart a healthy gateway; /readyz does, so traffic is only routed
// to a gateway that can serve it.
import type { Router } from 'express';
import { strictRouter } from '../router.js';
import type { KafkaGateway } from '../../kafka/types.js';
import { isKafkaRequestError, mapKafkaRequestError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { instance } from './shared.js';
import type { StateHealth } from '../../state/store.js';

type Health = components['schemas']['Health'];

/** Shared with the server: set while draining so load balancers stop sending traffic. */
export interface LifecycleState {
  draining: boolean;
}

export interface HealthRouteOptions {
  kafka: KafkaGateway;
  state: LifecycleState;
  /**
   * Backstop for the Kafka probe, so a hung probe cannot hang the readiness check. Keep
   * it above the Kafka layer's own ping timeout, whose error is more informative.
   */
  readyTimeoutMs: number;
  /** The state topic (when reassignments are on): readiness also needs it readable. */
  stateStore?: { refresh(): Promise<unknown>; health(): StateHealth; readonly topic: string };
}

export function healthRoutes({ kafka, state, readyTimeoutMs, stateStore }: HealthRouteOptions): Router {
  const router = strictRouter();

  router.get('/healthz', (_req, res) => {
    const body: Health = { status: 'ok' };
    res.json(body);
  });

  router.get('/readyz', async (req, res) => {
    const retryAfter = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
    if (state.draining) {
      return sendProblem(res, {
        problem: { type: problemType('shutting-down'), title: 'Shutting down', status: 503, detail: 'The gateway is draining connections.', instance: instance(req) },
        headers: retryAfter,
      });
    }
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      await Promise.race([
        kafka.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            reject(new Error(`Kafka ping exceeded ${readyTimeoutMs} ms`));
          }, readyTimeoutMs);
        }),
      ]);
      if (stateStore) {
        // Reading it is cheap (Metadata + ListOffsets, then only new records) and proves the
        // instance can act on its state: a gateway that cannot is not ready, with the reason.
        let stateTimer: NodeJS.Timeout | undefined;
        const ok = await Promise.race([
          stateStore.refresh().then(
            () => true,
            () => false,
          ),
          new Promise<false>((resolve) => (stateTimer = setTimeout(() => resolve(false), readyTimeoutMs))),
        ]);
        clearTimeout(stateTimer);
        const h = stateStore.health();
        if (!ok || h.status !== 'ok') {
          const missing = h.status === 'missing';
          return sendProblem(res, {
            problem: {
              type: problemType(missing ? 'state-topic-missing' : 'state-store-unavailable'),
              title: missing ? 'State topic missing' : 'State store unavailable',
              status: 503,
              detail: h.status === 'ok' ? `The state topic ${stateStore.topic} could not be read within ${readyTimeoutMs} ms.` : h.reason,
              instance: instance(req),
            },
            headers: retryAfter,
          });
        }
      }
      const body: Health = { status: 'ready' };
      res.json(body);
    } catch (err) {
      // Readiness is binary: whatever the failure, the answer is 503 with the reason.
      // Only a KafkaRequestError names a Kafka error; our own backstop timeout does not.
      const problem = isKafkaRequestError(err)
        ? { ...mapKafkaRequestError(err, instance(req)).problem, status: 503 }
        : {
            type: problemType(timedOut ? 'kafka-timeout' : 'kafka-unavailable'),
            title: timedOut ? 'Kafka request timed out' : 'Kafka unavailable',
            status: 503,
            detail: err instanceof Error ? err.message : String(err),
            instance: instance(req),
          };
      sendProblem(res, { problem, headers: retryAfter });
    } finally {
      clearTimeout(timer);
    }
  });

  return router;
}
