// Liveness and readiness. /healthz never touches Kafka, so a Kafka outage cannot make
// an orchestrator restart a healthy gateway; /readyz does, so traffic is only routed
// to a gateway that can serve it.
import type { RequestHandler, Router } from 'express';
import { strictRouter } from '../router.js';
import type { ReadinessService } from '../../services/readiness.js';
import { mapKafkaRequestError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { instance } from './shared.js';

type Health = components['schemas']['Health'];

/** Shared with the server: set while draining so load balancers stop sending traffic. */
export interface LifecycleState {
  draining: boolean;
}

export interface HealthRouteOptions {
  /** Kafka and (when reassignments are on) the state topic. */
  readiness: ReadinessService;
  state: LifecycleState;
  /**
   * Backstop for the Kafka probe, so a hung probe cannot hang the readiness check. Keep
   * it above the Kafka layer's own ping timeout, whose error is more informative.
   */
  readyTimeoutMs: number;
}

/**
 * Liveness probes are the gateway's most frequent request (one per pod every few seconds, from
 * every orchestrator and load balancer). Mounted right after the request id, the route match and
 * the HTTP metrics (app.ts): `GET /healthz` with no query string and no body is
 * answered here, as healthRoutes answers it after every later layer let it through unchanged
 * (public, nothing to parse, nothing the validator could refuse, not audited). Anything else
 * about /healthz (a query string, a body, another method, HEAD included) goes the whole way, and is answered
 * or refused there.
 */
export function livenessFastPath(): RequestHandler {
  return (req, res, next) => {
    if (
      req.url !== '/healthz' ||
      req.method !== 'GET' ||
      req.headers['content-length'] !== undefined ||
      req.headers['transfer-encoding'] !== undefined
    )
      return next();
    const body: Health = { status: 'ok' };
    res.json(body);
  };
}

export function healthRoutes({ readiness, state, readyTimeoutMs }: HealthRouteOptions): Router {
  const router = strictRouter();

  router.get('/healthz', (_req, res) => {
    const body: Health = { status: 'ok' };
    res.json(body);
  });

  router.get('/readyz', async (req, res) => {
    const retryAfter = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
    if (state.draining) {
      return sendProblem(res, {
        problem: {
          type: problemType('shutting-down'),
          title: 'Shutting down',
          status: 503,
          detail: 'The gateway is draining connections.',
          instance: instance(req),
        },
        headers: retryAfter,
      });
    }
    const outcome = await readiness.check(readyTimeoutMs);
    switch (outcome.kind) {
      case 'ready': {
        const body: Health = { status: 'ready' };
        return void res.json(body);
      }
      case 'state-topic-missing':
      case 'state-store-unavailable': {
        const missing = outcome.kind === 'state-topic-missing';
        return sendProblem(res, {
          problem: {
            type: problemType(outcome.kind),
            title: missing ? 'State topic missing' : 'State store unavailable',
            status: 503,
            detail: outcome.detail,
            instance: instance(req),
          },
          headers: retryAfter,
        });
      }
      // Readiness is binary: whatever the failure, the answer is 503 with the reason.
      // Only a Kafka request failure names a Kafka error; our own backstop timeout does not.
      case 'kafka-failed':
        return sendProblem(res, {
          problem: { ...mapKafkaRequestError(outcome.failure, instance(req)).problem, status: 503 },
          headers: retryAfter,
        });
      case 'kafka-timeout':
      case 'kafka-unavailable': {
        const timedOut = outcome.kind === 'kafka-timeout';
        const problem = {
          type: problemType(outcome.kind),
          title: timedOut ? 'Kafka request timed out' : 'Kafka unavailable',
          status: 503,
          detail: outcome.detail,
          instance: instance(req),
        };
        return sendProblem(res, { problem, headers: retryAfter });
      }
    }
  });

  return router;
}
