// The HTTP side of the quota admission service (src/services/quotas/mutation-admission.ts):
// reads the caller (res.locals.principal), ?retryOnQuotaViolation and ?timeoutMs from the
// request, aborts the retries when the client goes away, writes the RateLimit /
// RateLimit-Policy fields and counts the answers that leave with 429 (src/http/quota/metrics.ts).
import type { Request, Response } from 'express';
import type { ItemResult, MutationApi, MutationCall, MutationOutcome, QuotaMetrics } from '../../services/quotas/mutation-admission.js';
import { retryOptions } from '../../services/quotas/mutation-admission.js';

export class MutationGuard {
  readonly #metrics: QuotaMetrics;

  constructor(metrics: QuotaMetrics) {
    this.#metrics = metrics;
  }

  /**
   * Runs `mutate` (a service call through the admission) for this request's caller, sets the
   * RateLimit fields on `res`, and returns one result per item in request order.
   */
  async run<T>(
    req: Request,
    res: Response,
    api: MutationApi,
    mutate: (call: MutationCall) => Promise<MutationOutcome<T>>,
  ): Promise<ItemResult<T>[]> {
    const principal = (res.locals.principal as { id?: unknown } | undefined)?.id;
    const q = req.query as Record<string, unknown>;
    res.once('finish', () => {
      if (res.statusCode === 429) this.#metrics.answered429(api);
    });
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const call: MutationCall = {
      principal: typeof principal === 'string' ? principal : undefined,
      // Already schema-validated; Express 5 re-parses the query, so the raw strings are read.
      retry: retryOptions(q.retryOnQuotaViolation, q.timeoutMs),
      signal: aborted.signal,
      metrics: this.#metrics,
    };
    const { results, rateLimit } = await mutate(call);
    if (rateLimit.policy !== undefined) res.set('RateLimit-Policy', rateLimit.policy);
    if (rateLimit.limit !== undefined) res.set('RateLimit', rateLimit.limit);
    return results;
  }
}
