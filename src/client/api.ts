// A small typed client of the gateway's HTTP API, shared by the web console (browser) and
// the CLI (Node): only `fetch`, no DOM or Node APIs, so both builds use it as it is. Types
// come from openapi.yaml (src/http/openapi-types.ts, type-only: nothing of it is bundled).
//
// Endpoints other branches are adding (GET /brokers, POST /plans, GET /reassignments/{id}/
// partitions, pause/concurrency on PATCH) are called the same way; a gateway without them
// answers 404 `route-not-found`, which `optional()` turns into `null` so a caller can say
// "not available on this gateway" instead of failing.
import type { components } from '../http/openapi-types.js';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
/** Pacing (h9): bounds on moves in flight. */
export interface Concurrency {
  perBroker?: number | null;
  cluster?: number | null;
}
/** Pacing status of a reassignment (from its summary's counts and pacing fields). */
export interface PacingStatus {
  paused: boolean;
  concurrency: Concurrency;
  order: string;
  counts: { queued: number; moving: number; completed: number; failed: number };
  etaSeconds: number | null;
}
/** GET /reassignments/{id}: the summary (no per-partition rows). */
export type ReassignmentSummaryView = Schemas['Reassignment'];
/** One row of GET /reassignments/{id}/partitions. */
export type ReassignmentPartitionItem = Schemas['ReassignmentPartitionItem'];
/**
 * A partition as the console and the CLI show it, made from a page row: `status` in the
 * vocabulary they display (done/reverted/superseded), `copies` one entry for its adding replicas.
 */
export interface ReassignmentPartitionView {
  topic: string;
  partition: number;
  status: 'queued' | 'pending' | 'moving' | 'done' | 'reverted' | 'failed' | 'superseded';
  originalReplicas: number[];
  targetReplicas: number[];
  replicas: number[];
  adding: number[];
  removing: number[];
  copies: { broker: number; bytesCopied: number; bytesRemaining: number | null; bytesTotal: number | null; percent: number | null }[];
  error?: { code: number; name: string; message: string };
  supersededBy?: string;
}
/** The summary plus the first page of partitions (what the console's detail and `kag reassign status` show). */
export type Reassignment = ReassignmentSummaryView & { partitions: ReassignmentPartitionView[]; pacing?: PacingStatus };

/** A page row in the console/CLI vocabulary. */
export function partitionView(p: ReassignmentPartitionItem): ReassignmentPartitionView {
  const status: ReassignmentPartitionView['status'] =
    p.state === 'completed' ? 'done' : p.state === 'cancelled' ? (p.supersededBy ? 'superseded' : 'reverted') : p.state;
  const copies =
    p.state === 'moving' || p.state === 'completed'
      ? [{ broker: p.addingReplicas[0] ?? p.targetReplicas[0] ?? -1, bytesCopied: p.bytesDone ?? 0, bytesTotal: p.bytesTotal, bytesRemaining: p.bytesTotal === null || p.bytesDone === null ? null : Math.max(0, p.bytesTotal - p.bytesDone), percent: p.percent }]
      : [];
  return {
    topic: p.topic,
    partition: p.partition,
    status,
    originalReplicas: p.originalReplicas,
    targetReplicas: p.targetReplicas,
    replicas: p.replicas,
    adding: p.addingReplicas,
    removing: p.removingReplicas,
    copies,
    ...(p.error && { error: p.error }),
    ...(p.supersededBy && { supersededBy: p.supersededBy }),
  };
}

/** Pacing status from a summary. */
export function pacingOf(r: ReassignmentSummaryView): PacingStatus {
  return { paused: r.paused, concurrency: r.concurrency ?? {}, order: r.order, counts: r.counts, etaSeconds: r.progress.etaSeconds };
}
export type ReassignmentSummary = Schemas['ReassignmentSummary'];
export type ReassignmentList = Schemas['ReassignmentList'];
/** POST /reassignments body: fields with defaults are optional (the generated type marks them required). */
export type ReassignmentRequest = Omit<Schemas['ReassignmentRequest'], 'autoRemoveThrottle' | 'validateOnly' | 'addToExisting'> &
  Partial<Pick<Schemas['ReassignmentRequest'], 'autoRemoveThrottle' | 'validateOnly' | 'addToExisting'>> & {
    /** Pacing (gateways with paced execution): moves in flight and their order. */
    concurrency?: Concurrency;
    order?: 'size-asc' | 'size-desc' | 'as-given';
  };
export type ReassignmentFile = Schemas['ReassignmentFile'];
export type ReassignmentPlan = Schemas['ReassignmentPlan'];
export type ReassignmentAccepted = Schemas['ReassignmentAccepted'];
export type ReassignmentCancelled = Schemas['ReassignmentCancelled'];
export type Throttles = Schemas['Throttles'];
export type Cluster = Schemas['Cluster'];
export type TopicList = Schemas['TopicList'];
export type Topic = Schemas['Topic'];
export type ClientQuotaList = Schemas['ClientQuotaList'];
export type WhoAmI = Schemas['WhoAmI'];
export type Role = WhoAmI['role'];

/** Fields a PATCH may carry: `throttle` exists today; `paused`/`concurrency` arrive with pacing. */
export interface ReassignmentPatch {
  throttle?: number | null;
  paused?: boolean;
  concurrency?: Concurrency;
}

/** GET /brokers (gateways with planning): load per broker; loosely typed, the console shows what is there. */
export interface BrokerLoad {
  id: number;
  rack?: string | null;
  host?: string | null;
  port?: number | null;
  live?: boolean;
  replicas?: number;
  leaders?: number;
  preferredLeaders?: number;
  /** Sum of its replicas' sizes (DescribeLogDirs); null when it did not answer. */
  bytes?: number | null;
  /** Partitions a running reassignment copies to it / will drop from it. */
  reassignment?: { adding: number; removing: number };
}

/** POST /plans (gateways with planning). */
export interface PlanRequest {
  goal: 'decommission' | 'rebalance' | 'replication-factor' | 'rack-repair' | string;
  brokers?: number[];
  topics?: string[];
  excludeTopics?: string[];
  replicationFactor?: number;
  rackAware?: boolean;
  balanceLeaders?: boolean;
  weight?: 'replicas' | 'bytes';
}
export interface PlanBrokerLoad {
  broker: number;
  rack?: string | null;
  live?: boolean;
  replicas: number;
  leaders: number;
  bytes: number | null;
}
export interface PlanAnswer {
  goal: string;
  partitions: { topic: string; partition: number; currentReplicas: number[]; targetReplicas: number[]; adding: number[]; removing: number[]; bytes: number | null }[];
  /** Kafka's reassignment file of the plan: POST it to /reassignments. */
  reassignment: ReassignmentFile;
  movedReplicas: number;
  movedBytes: number | null;
  lowerBound?: { movedReplicas: number; movedBytes: number | null };
  before: PlanBrokerLoad[];
  after: PlanBrokerLoad[];
  warnings: { message: string; code?: string; [k: string]: unknown }[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem | null;
  /** Seconds from Retry-After (429, 503), when sent. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, problem: Problem | null, retryAfterSeconds: number | null, fallback: string) {
    super(describeProblem(status, problem, retryAfterSeconds, fallback));
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The endpoint itself does not exist on this gateway (an older version). */
  get routeMissing(): boolean {
    return this.status === 404 && (this.problem?.type?.endsWith('/route-not-found') ?? false);
  }
}

/** A problem as a person reads it: "403 Insufficient role: cancelReassignment requires ...". */
export function describeProblem(status: number, problem: Problem | null, retryAfterSeconds: number | null, fallback = ''): string {
  let text = `${status} ${problem?.title ?? fallback}`.trim();
  if (problem?.detail) text += `: ${problem.detail}`;
  if (problem?.kafkaError) text += ` (Kafka ${problem.kafkaError.name}, code ${problem.kafkaError.code})`;
  const errors = problem?.errors ?? [];
  if (errors.length) text += `\n${errors.slice(0, 10).map((e) => `  - ${e.path ? `${e.path}: ` : ''}${e.message}`).join('\n')}${errors.length > 10 ? `\n  … ${errors.length - 10} more` : ''}`;
  if (retryAfterSeconds !== null) text += `\nRetry after ${retryAfterSeconds} s.`;
  return text;
}

export interface ClientOptions {
  /** e.g. http://localhost:8080 (no trailing path needed); '' = same origin (the console). */
  baseUrl: string;
  token?: string | null;
  fetch?: typeof fetch;
}

export type Query = Record<string, string | number | boolean | undefined | null | readonly (string | number)[]>;

function queryString(q: Query | undefined): string {
  if (!q) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null || v === false) continue;
    const values = Array.isArray(v) ? v : [v];
    for (const x of values) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface GatewayClient {
  request<T>(method: string, path: string, opts?: { query?: Query; body?: unknown }): Promise<T>;
  whoami(): Promise<WhoAmI>;
  cluster(): Promise<Cluster>;
  topics(): Promise<TopicList>;
  topic(name: string): Promise<Topic>;
  /** GET /brokers; null when this gateway does not have it. */
  brokers(): Promise<BrokerLoad[] | null>;
  /** POST /plans; null when this gateway does not have it. */
  plan(body: PlanRequest): Promise<PlanAnswer | null>;
  reassignments(): Promise<ReassignmentList>;
  reassignment(id: string): Promise<ReassignmentSummaryView>;
  /** 200 with the plan (validateOnly) or 202 with the accepted reassignment. */
  startReassignment(body: ReassignmentRequest, opts?: { detail?: boolean }): Promise<ReassignmentAccepted | ReassignmentPlan>;
  patchReassignment(id: string, patch: ReassignmentPatch): Promise<ReassignmentSummaryView>;
  cancelReassignment(id: string, opts?: { rollback?: boolean; preserveThrottles?: boolean }): Promise<ReassignmentCancelled>;
  /** GET /reassignments/{id}/partitions (paged; newer gateways); null when this gateway does not have it. */
  reassignmentPartitions(id: string, query?: { state?: string; limit?: number; cursor?: string }): Promise<{ partitions: ReassignmentPartitionView[]; next: string | null } | null>;
  /** A reassignment with its partitions, from the summary plus the first page when they are paged. */
  reassignmentWithPartitions(id: string, limit?: number): Promise<Reassignment>;
  throttles(): Promise<Throttles>;
  quotas(query?: Query): Promise<ClientQuotaList>;
}

/** 404 route-not-found → null; any other error propagates. */
export async function optional<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ApiError && err.routeMissing) return null;
    throw err;
  }
}

export function createClient(opts: ClientOptions): GatewayClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function request<T>(method: string, path: string, o: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await doFetch(`${base}${path}${queryString(o.query)}`, { method, headers, ...(o.body !== undefined && { body: JSON.stringify(o.body) }) });
    const text = await res.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (!res.ok) {
      const ra = res.headers.get('retry-after');
      const retryAfter = ra !== null && /^\d+$/.test(ra) ? Number(ra) : null;
      const problem = json && typeof json === 'object' && 'status' in json ? (json as Problem) : null;
      throw new ApiError(res.status, problem, retryAfter, res.statusText || text.slice(0, 200));
    }
    return json as T;
  }

  const enc = encodeURIComponent;
  return {
    request,
    whoami: () => request('GET', '/whoami'),
    cluster: () => request('GET', '/cluster'),
    topics: () => request('GET', '/topics'),
    topic: (name) => request('GET', `/topics/${enc(name)}`),
    brokers: async () => {
      const r = await optional(request<BrokerLoad[] | { brokers: BrokerLoad[] }>('GET', '/brokers'));
      return r === null ? null : Array.isArray(r) ? r : r.brokers;
    },
    plan: (body) => optional(request<PlanAnswer>('POST', '/plans', { body })),
    reassignments: () => request('GET', '/reassignments'),
    reassignment: (id) => request('GET', `/reassignments/${enc(id)}`),
    startReassignment: (body, o = {}) => request('POST', '/reassignments', { body, ...(o.detail && { query: { detail: true } }) }),
    patchReassignment: (id, patch) => request('PATCH', `/reassignments/${enc(id)}`, { body: patch }),
    cancelReassignment: (id, o = {}) => request('DELETE', `/reassignments/${enc(id)}`, { query: { rollback: o.rollback, preserveThrottles: o.preserveThrottles } }),
    async reassignmentPartitions(id, query) {
      const page = await optional(request<Schemas['ReassignmentPartitionPage']>('GET', `/reassignments/${enc(id)}/partitions`, { ...(query && { query }) }));
      if (page === null) return null;
      return { partitions: page.items.map(partitionView), next: page.next };
    },
    async reassignmentWithPartitions(id, limit = 200) {
      const r = await request<ReassignmentSummaryView>('GET', `/reassignments/${enc(id)}`);
      const page = await this.reassignmentPartitions(id, { limit });
      return { ...r, partitions: page?.partitions ?? [], pacing: pacingOf(r) };
    },
    throttles: () => request('GET', '/throttles'),
    quotas: (query) => request('GET', '/quotas', { ...(query && { query }) }),
  };
}

/** Human units, shared by the console and the CLI. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const ROLE_ORDER: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
export const roleAtLeast = (have: Role | null | undefined, need: Role): boolean => have !== null && have !== undefined && ROLE_ORDER[have] >= ROLE_ORDER[need];
