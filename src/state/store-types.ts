// The state store's contract (store.ts): the log it reads and writes, the view it offers, its
// health and events, and what claims answer. Importable from store.ts as before.
import type { DecidedClaim } from './claims.js';
import { MESSAGE_MAX_BYTES } from './layout.js';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhooks.js';
import type { LedgerRecord, ProgressRecord, ReassignmentRecord, ThrottleRequestRecord } from './records.js';

/** Produce batches the store writes stay under this (Kafka's default max.message.bytes is 1 MiB per batch). */
export const BATCH_MAX_BYTES = MESSAGE_MAX_BYTES;
/** Chunks no header names are tombstoned once they are this old (their writer died between chunks and header). */
export const ORPHAN_CHUNK_GRACE_MS = 5 * 60_000;

/** The log the store reads and writes (src/kafka/state-topic.ts implements it on Kafka). */
export interface StateLog {
  readonly name: string;
  /**
   * Makes sure the topic exists. `create`: create it when missing (first use); otherwise a
   * missing topic is a StateTopicMissingError.
   */
  ensure(opts?: { create: boolean }): Promise<void>;
  /** [start, end) of the partition, and the topic's id (a new id = the topic was re-created). */
  offsets(): Promise<{ start: bigint; end: bigint; topicId?: string }>;
  /**
   * Records with from <= offset < to, in offset order. `skip(key)`: the reader already holds
   * that key's value (it is written once): a record of it that is not a tombstone may be left
   * out, so its value is never decoded from the fetched bytes.
   */
  read(
    from: bigint,
    to: bigint,
    opts?: { skip?: (key: string) => boolean },
  ): Promise<{ offset: bigint; key: string; value: string | null }[]>;
  write(records: { key: string; value: string | null }[]): Promise<bigint>;
}

/** The state topic this process used is gone (deleted outside the gateway). */
export class StateTopicMissingError extends Error {
  readonly topic: string;
  constructor(topic: string) {
    super(
      `The gateway's state topic ${topic} does not exist any more (deleted outside the gateway?). The gateway does not re-create it over lost state: see "Recovering the state topic" in the README.`,
    );
    this.name = 'StateTopicMissingError';
    this.topic = topic;
  }
}

export type StateHealth = { status: 'ok' } | { status: 'missing' | 'unavailable'; reason: string; since: number };

export type StateEvent =
  | {
      type: 'reset';
      cause: 'new-topic-id' | 'end-below-position' | 'start-beyond-position' | 'own-write-refused';
      position: bigint;
      start: bigint;
      end: bigint;
    }
  /** A write under a claim refused (fence.ts): before producing (`own`, lease over) or read in the log (anyone's). */
  | { type: 'fenced'; claim: string; where: 'before-write' | 'in-log'; own: boolean; records: number }
  | { type: 'missing'; topic: string }
  | { type: 'unavailable'; reason: string }
  | { type: 'recovered' };

export interface ClaimOptions {
  /** What it is for (logs, 409 details). */
  purpose: string;
  /** Gateway instance writing it. */
  owner: string;
  /** Lease: the claim holds at most this long (<= MAX_CLAIM_TTL_MS). */
  ttlMs: number;
  now?: () => number;
}

/** What a holder's own lease check keeps in reserve (a tenth of shorter leases): fencing refuses what lands later. */
export const OWN_LEASE_MARGIN_MS = 1000;

/** Writes refused in the log, to be written again as accepted (fence.ts): by the resources of their claim. */
export interface RefusedWrites {
  resources: string[];
  /** Keys whose latest record is a refused one. */
  keys: Set<string>;
}

export type ClaimResult =
  | { granted: true; claim: DecidedClaim }
  /** Lost (the claim record is already tombstoned): `holder` held one of the resources. */
  | { granted: false; claimId: string; holder: DecidedClaim | undefined };

export interface StateView {
  readonly reassignments: ReadonlyMap<string, ReassignmentRecord>;
  readonly throttleRequests: ReadonlyMap<string, ThrottleRequestRecord>;
  /** By ledger id (`topic/<name>`, `broker/<id>`). */
  readonly ledger: ReadonlyMap<string, LedgerRecord>;
  /** Progress snapshots by reassignment id. */
  readonly progress: ReadonlyMap<string, ProgressRecord>;
  /** Webhooks and their delivery progress by webhook id (src/state/webhooks.ts). */
  readonly webhooks?: ReadonlyMap<string, WebhookRecord>;
  readonly webhookDeliveries?: ReadonlyMap<string, WebhookDeliveryRecord>;
}

export interface StoreHooks {
  /** TEST HOOK: called after each batch of reassignment chunks is acknowledged, before the header. */
  afterChunkBatch?: () => void;
}
