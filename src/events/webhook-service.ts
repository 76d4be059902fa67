// Webhooks as the HTTP routes see them (typed inputs and outcomes, no HTTP objects): create,
// list, read, delete, and the deliveries of one. Kept in the state topic (src/state/webhooks.ts),
// so every instance answers alike; the secret never leaves the gateway after creation.
import { randomBytes } from 'node:crypto';
import type { StateStore } from '../state/store.js';
import {
  WEBHOOK_RECORD_VERSION,
  webhookDeliveryKey,
  webhookKey,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from '../state/webhooks.js';
import type { ReassignmentChangeFeed } from './reassignment-changes.js';
import { KNOWN_CHANGE_TYPES } from './reassignment-milestones.js';
import type { WebhookConfig } from './webhook-config.js';
import { newSecret, secretKey, SECRET_MAX_BYTES, SECRET_MIN_BYTES } from './webhook-message.js';
import { deliveryViews, pendingChanges, type DeliveryView } from './webhook-queue.js';

export interface CreateWebhookInput {
  url: string;
  /** Change types to deliver; null/absent = every change. */
  events?: readonly string[] | null;
  /** `whsec_<base64 of 24-64 bytes>`; absent = generated and answered once. */
  secret?: string;
  description?: string | null;
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  createdAt: number;
  createdBy: string | null;
  /** As this instance sees them: changes waiting, delivered, given up (outcomes are kept for the last MAX_DELIVERY_OUTCOMES). */
  deliveries: { pending: number; delivered: number; failed: number };
}

export interface FieldProblem {
  path: string;
  message: string;
}

export type CreateWebhookOutcome =
  | { kind: 'created'; webhook: WebhookView; /** The generated secret (null when the caller gave one). */ secret: string | null }
  | { kind: 'invalid'; errors: FieldProblem[] }
  | { kind: 'limit'; max: number };

export type WebhookStore = Pick<StateStore, 'refresh' | 'write'>;

export interface WebhookServiceDeps {
  store: WebhookStore;
  changes: ReassignmentChangeFeed;
  config: Pick<WebhookConfig, 'maxWebhooks'>;
  /** Called after a webhook is created (the delivery looks at it at once). */
  onCreated?: () => void;
  now?: () => number;
}

/** GET /webhooks/{id}/deliveries answers at most this many lines. */
export const MAX_DELIVERIES_LISTED = 200;

/** Why a URL is refused (null: accepted). */
export function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http or https, not ${url.protocol.replace(/:$/, '')}`;
  // Credentials in the URL would show in every GET /webhooks answer: the signature authenticates.
  if (url.username || url.password) return 'must not carry credentials (user:password@): deliveries are signed with the secret';
  if (url.hash) return 'must not have a #fragment';
  return null;
}

export class WebhookService {
  readonly #d: WebhookServiceDeps;
  readonly #now: () => number;

  constructor(deps: WebhookServiceDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  async create(input: CreateWebhookInput, requestedBy: string | null): Promise<CreateWebhookOutcome> {
    const errors: FieldProblem[] = [];
    const url = urlProblem(input.url);
    if (url) errors.push({ path: '/url', message: url });
    const events = input.events ? [...new Set(input.events)] : null;
    for (const [i, e] of (input.events ?? []).entries())
      if (!KNOWN_CHANGE_TYPES.includes(e))
        errors.push({ path: `/events/${i}`, message: `unknown change type; one of ${KNOWN_CHANGE_TYPES.join(', ')}` });
    if (input.secret !== undefined && !secretKey(input.secret))
      errors.push({
        path: '/secret',
        message: `must be whsec_ followed by the base64 of ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES} bytes`,
      });
    if (errors.length) return { kind: 'invalid', errors };
    const view = await this.#d.store.refresh();
    const max = this.#d.config.maxWebhooks;
    if ((view.webhooks?.size ?? 0) >= max) return { kind: 'limit', max };
    const now = this.#now();
    const secret = input.secret ?? newSecret();
    const record: WebhookRecord = {
      kind: 'webhook',
      v: WEBHOOK_RECORD_VERSION,
      id: `wh_${randomBytes(8).toString('hex')}`,
      url: input.url,
      events,
      secret,
      description: input.description ?? null,
      createdAt: now,
      createdBy: requestedBy,
      updatedAt: now,
    };
    await this.#d.store.write([record]);
    this.#d.onCreated?.();
    return { kind: 'created', webhook: this.#view(record, undefined), secret: input.secret === undefined ? secret : null };
  }

  async list(): Promise<WebhookView[]> {
    const view = await this.#d.store.refresh();
    return [...(view.webhooks?.values() ?? [])]
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      .map((w) => this.#view(w, view.webhookDeliveries?.get(w.id)));
  }

  async get(id: string): Promise<WebhookView | undefined> {
    const view = await this.#d.store.refresh();
    const w = view.webhooks?.get(id);
    return w && this.#view(w, view.webhookDeliveries?.get(id));
  }

  /** Deletes the webhook and its delivery progress; false when there is none. */
  async delete(id: string): Promise<boolean> {
    const view = await this.#d.store.refresh();
    if (!view.webhooks?.has(id)) return false;
    await this.#d.store.write([], [webhookKey(id), webhookDeliveryKey(id)]);
    return true;
  }

  /** Its deliveries, pending first, then the recorded outcomes newest first; undefined when there is no such webhook. */
  async deliveries(id: string, limit = MAX_DELIVERIES_LISTED): Promise<DeliveryView[] | undefined> {
    const view = await this.#d.store.refresh();
    const w = view.webhooks?.get(id);
    if (!w) return undefined;
    return deliveryViews(w, view.webhookDeliveries?.get(id), this.#d.changes.since().changes, Math.min(limit, MAX_DELIVERIES_LISTED));
  }

  #view(w: WebhookRecord, rec: WebhookDeliveryRecord | undefined): WebhookView {
    let delivered = 0;
    let failed = 0;
    for (const o of rec?.outcomes ?? [])
      if (o.status === 'delivered') delivered++;
      else failed++;
    const pending = pendingChanges(w, rec, this.#d.changes.since().changes).length;
    return {
      id: w.id,
      url: w.url,
      events: w.events,
      description: w.description,
      createdAt: w.createdAt,
      createdBy: w.createdBy,
      deliveries: { pending, delivered, failed },
    };
  }
}
