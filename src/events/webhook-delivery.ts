// Delivers the change feed to the webhooks: at least once, from exactly one instance at a time,
// with progress in the state topic so that a crash loses nothing (docs/events.md).
//
// Every instance runs this. A pass (woken by a change, or every WEBHOOK_POLL_MS):
//   1. reads the state topic; for each webhook, the changes it still has to receive are those of
//      the change feed (the same ids on every instance) with no outcome in its delivery record
//      (webhook-queue.ts). Nothing due: done.
//   2. another instance holds the delivery claim (`webhooks/delivery`, src/state/claims.ts) and its
//      lease is not over: done (it delivers). Otherwise claim it; lost: done.
//   3. holding it, per webhook (webhooks in parallel, each in order): sign and POST the first
//      change; record the outcome (delivered, or given up after WEBHOOK_MAX_ATTEMPTS /
//      WEBHOOK_MAX_AGE_SECONDS) or the retry state (attempts, next attempt after an exponential
//      backoff with jitter) in the webhook's delivery record, written fenced by the claim; go
//      on with the next change, or stop this webhook until its retry is due. No attempt starts
//      unless the lease outlasts its timeout.
//   4. release the claim.
// A holder that dies: its lease ends, another instance claims and sends every change without
// an outcome, including one the dead holder may have delivered without recording it (receivers
// deduplicate by `webhook-id`, the change's id). A holder paused past its lease cannot overwrite
// its successor's progress: its writes are refused (src/state/fence.ts).
import { performance } from 'node:perf_hooks';
import type { Logger } from '../observability/logger.js';
import type { DecidedClaim } from '../state/claims.js';
import type { StateStore } from '../state/store.js';
import { emptyDeliveryRecord, webhookDeliveryKey, withOutcome, type WebhookDeliveryRecord, type WebhookRecord } from '../state/webhooks.js';
import type { ReassignmentChange, ReassignmentChangeFeed } from './reassignment-changes.js';
import { backoffMs, type WebhookConfig } from './webhook-config.js';
import { signedRequest } from './webhook-message.js';
import type { AttemptResult, WebhookMetrics } from './webhook-metrics.js';
import { pendingChanges } from './webhook-queue.js';

/** The resource of the claim under which one instance delivers (every webhook). */
export const DELIVERY_CLAIM = 'webhooks/delivery';

/** Sends one request; resolves with the receiver's status, rejects when there is none (refused, timed out: `name` 'TimeoutError'). */
export type WebhookSender = (req: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}) => Promise<{ status: number }>;

/** POST with fetch: redirects are not followed (a 3xx is a failure), the answer's body is not read. */
export const fetchSender: WebhookSender = async ({ url, headers, body, timeoutMs }) => {
  const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  await res.body?.cancel().catch(() => undefined);
  return { status: res.status };
};

export type DeliveryStore = Pick<StateStore, 'refresh' | 'view' | 'claim' | 'release' | 'underClaim' | 'holds' | 'holder' | 'write'>;

export interface WebhookDeliveryDeps {
  store: DeliveryStore;
  changes: ReassignmentChangeFeed;
  config: WebhookConfig;
  /** This instance (claims' owner). */
  owner: string;
  /** CloudEvents `source` of every event. */
  source: string;
  metrics?: WebhookMetrics;
  logger?: Logger;
  send?: WebhookSender;
  now?: () => number;
  random?: () => number;
}

type Attempt =
  { ok: true; status: number; result: AttemptResult } | { ok: false; status: number | null; error: string; result: AttemptResult };

const MAX_ERROR_CHARS = 300;

export class WebhookDelivery {
  readonly #d: WebhookDeliveryDeps;
  readonly #now: () => number;
  readonly #send: WebhookSender;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #started = false;
  /** stop() was called: no new pass, no new attempt. */
  #stopped = false;
  #unsubscribe: (() => void) | undefined;
  #lastFailure: { reason: string; at: number } | undefined;

  constructor(deps: WebhookDeliveryDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#send = deps.send ?? fetchSender;
  }

  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    // A new change wakes the pass at once (its delivery starts within a state-topic read).
    this.#unsubscribe = this.#d.changes.subscribe(() => this.wake());
    this.#schedule(0);
  }

  /** Stops passes; the one under way ends after its attempts in flight (its claim released). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Runs a pass soon (a webhook was created, a change observed). */
  wake(): void {
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped || !this.#started) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), Math.max(0, ms));
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#running || this.#stopped) return;
    let next = this.#d.config.pollMs;
    this.#running = (async () => {
      try {
        next = await this.pass();
      } catch (err) {
        // A state topic that cannot be read fails every pass: logged once a minute, or when the reason changes.
        const reason = err instanceof Error ? err.message : String(err);
        const now = this.#now();
        if (reason !== this.#lastFailure?.reason || now - this.#lastFailure.at >= 60_000) {
          this.#lastFailure = { reason, at: now };
          this.#d.logger?.warn('webhook delivery pass failed', { err: reason });
        }
      }
    })();
    await this.#running;
    this.#running = undefined;
    if (this.#again) {
      this.#again = false;
      next = 0;
    }
    this.#schedule(next);
  }

  /** One pass (see the top of the file); resolves with the time until the next one is due (ms). Exposed for tests. */
  async pass(): Promise<number> {
    const { store, config } = this.#d;
    // Without webhooks, no read of the state topic of its own (the reconciler's passes keep the
    // view fresh: a webhook created on another instance shows up within one of them).
    const view = (store.view().webhooks?.size ?? 0) > 0 ? await store.refresh() : store.view();
    const webhooks = view.webhooks ?? new Map<string, WebhookRecord>();
    const deliveries = view.webhookDeliveries ?? new Map<string, WebhookDeliveryRecord>();
    const now = this.#now();
    const changes = this.#d.changes.since().changes;
    let depth = 0;
    let due = false;
    let nextAt = Infinity;
    for (const w of webhooks.values()) {
      const rec = deliveries.get(w.id);
      const queue = pendingChanges(w, rec, changes);
      depth += queue.length;
      if (queue.length === 0) continue;
      const retry = rec?.retry?.eventId === queue[0].eventId ? rec.retry : null;
      if (!retry || retry.nextAttemptAt <= now) due = true;
      else nextAt = Math.min(nextAt, retry.nextAttemptAt);
    }
    this.#d.metrics?.queueDepth(depth);
    // Progress of webhooks deleted while their delivery was being written: swept by the holder.
    const orphans = [...deliveries.keys()].filter((id) => !webhooks.has(id));
    if (!due && orphans.length === 0) return Math.min(config.pollMs, Math.max(10, nextAt - now));
    // Another instance delivers (its lease, by our clock, is not over).
    if (store.holder(DELIVERY_CLAIM)) return config.pollMs;
    const claimed = await store.claim([DELIVERY_CLAIM], { purpose: 'webhook delivery', owner: this.#d.owner, ttlMs: config.leaseMs });
    if (!claimed.granted) return config.pollMs;
    this.#d.metrics?.delivering(true);
    try {
      await store.underClaim(claimed.claim, async () => {
        if (orphans.length) await store.write([], orphans.map(webhookDeliveryKey));
        // Every webhook's attempts end before the claim is released (none sends without it).
        const drained = await Promise.allSettled([...webhooks.keys()].map((id) => this.#drain(id, claimed.claim)));
        const failed = drained.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
      });
    } catch (err) {
      // Fenced (the lease ended under us) or the state topic failed: the next holder goes on.
      this.#d.logger?.warn('webhook delivery stopped', { err: err instanceof Error ? err.message : String(err) });
    } finally {
      await store.release(claimed.claim).catch(() => undefined);
      this.#d.metrics?.delivering(false);
    }
    // Right away: what is due now (a retry, a change that came meanwhile) is looked at again.
    return 10;
  }

  /** Delivers one webhook's changes in order until none is due or the lease runs short. */
  async #drain(id: string, claim: DecidedClaim): Promise<void> {
    const { store, config } = this.#d;
    for (;;) {
      if (this.#stopped) return;
      const view = store.view();
      const webhook = view.webhooks?.get(id);
      if (!webhook) return;
      const now = this.#now();
      const rec = view.webhookDeliveries?.get(id) ?? emptyDeliveryRecord(id, now);
      const head = pendingChanges(webhook, rec, this.#d.changes.since().changes)[0];
      if (!head) return;
      const retry = rec.retry?.eventId === head.eventId ? rec.retry : null;
      if (retry && retry.nextAttemptAt > now) return;
      // The attempt must end inside the lease: a successor could otherwise send the same change meanwhile.
      if (!store.holds(claim, config.attemptTimeoutMs)) return;
      const attempt = await this.#attempt(webhook, head);
      const end = this.#now();
      const attempts = (retry?.attempts ?? 0) + 1;
      const firstAttemptAt = retry?.firstAttemptAt ?? now;
      const at = Date.parse(head.at);
      const outcome = {
        eventId: head.eventId,
        type: head.type,
        reassignmentId: head.reassignmentId,
        at,
        attempts,
        finishedAt: end,
        lastStatus: attempt.status,
      };
      let next: WebhookDeliveryRecord;
      let ended: 'delivered' | 'failed' | null = null;
      if (attempt.ok) {
        next = withOutcome(rec, { ...outcome, status: 'delivered' }, end);
        ended = 'delivered';
      } else if (attempts >= config.maxAttempts || end - firstAttemptAt >= config.maxAgeMs) {
        next = withOutcome(rec, { ...outcome, status: 'failed', lastError: attempt.error }, end);
        ended = 'failed';
        this.#d.logger?.warn('webhook delivery given up', {
          webhook: id,
          eventId: head.eventId,
          attempts,
          lastStatus: attempt.status,
          lastError: attempt.error,
        });
      } else {
        const retryAt = end + backoffMs(config, attempts, this.#d.random);
        next = {
          ...rec,
          retry: {
            eventId: head.eventId,
            attempts,
            firstAttemptAt,
            nextAttemptAt: retryAt,
            lastStatus: attempt.status,
            lastError: attempt.error,
          },
          updatedAt: end,
        };
      }
      // Deleted meanwhile: its progress is not written back (it would outlive it).
      if (!store.view().webhooks?.has(id)) return;
      await store.write([next]);
      if (ended) this.#d.metrics?.delivery(ended, ended === 'delivered' ? (end - at) / 1000 : null);
      if (!ended) return; // until its retry is due
    }
  }

  async #attempt(webhook: WebhookRecord, change: ReassignmentChange): Promise<Attempt> {
    const timeoutMs = this.#d.config.attemptTimeoutMs;
    const started = performance.now();
    let out: Attempt;
    try {
      const { headers, body } = signedRequest(change, this.#d.source, webhook.secret, this.#now());
      const { status } = await this.#send({ url: webhook.url, headers, body, timeoutMs });
      out =
        status >= 200 && status < 300
          ? { ok: true, status, result: 'success' }
          : { ok: false, status, error: `HTTP ${status}`, result: 'http-error' };
    } catch (err) {
      const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
      if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
        out = { ok: false, status: null, error: `no answer within ${timeoutMs} ms`, result: 'timeout' };
      else {
        const detail = [e?.message, e?.cause?.code ?? e?.cause?.message].filter(Boolean).join(': ');
        out = { ok: false, status: null, error: (detail || String(err)).slice(0, MAX_ERROR_CHARS), result: 'network-error' };
      }
    }
    this.#d.metrics?.attempt(out.result, (performance.now() - started) / 1000);
    return out;
  }
}
