// A small typed client of the gateway's HTTP API, shared by the web console (browser) and
// the CLI (Node): only `fetch`, no DOM or Node APIs, so both builds use it as it is. Types
// come from openapi.yaml (src/http/openapi-types.ts, type-only: nothing of it is bundled).
//
// GET /brokers and POST /plans came later than the rest; a gateway without them answers 404
// `route-not-found`, which `optional()` turns into `null` so a caller can say "not available on
// this gateway" instead of failing. Reassignments follow openapi.yaml as it is: a summary on
// GET /reassignments/{id} (state, paused, concurrency, order, counts, progress), per-partition
// rows from the paged GET /reassignments/{id}/partitions, PATCH {throttle, concurrency, paused}.
import type { components } from '../http/openapi-types.js';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
/** Paced execution: bounds on moves in flight (null = no bound at that level). */
export type Concurrency = NonNullable<Schemas['ReassignmentConcurrency']>;
export type ReassignmentOrder = Schemas['ReassignmentOrder'];
export const REASSIGNMENT_ORDERS: readonly ReassignmentOrder[] = ['size-asc', 'size-desc', 'as-given'];
/** GET /reassignments/{id}: the summary (no per-partition rows). */
export type Reassignment = Schemas['Reassignment'];
export type ReassignmentState = Reassignment['state'];
export type PartitionCounts = Reassignment['counts'];
/** One row of GET /reassignments/{id}/partitions. */
export type ReassignmentPartitionItem = Schemas['ReassignmentPartitionItem'];
export type PartitionState = ReassignmentPartitionItem['state'];
/** A page of GET /reassignments/{id}/partitions: `next` is the URL of the next page, or null. */
export type ReassignmentPartitionPage = Schemas['ReassignmentPartitionPage'];
/** What a status view shows: the summary and the first page of its moving partitions. */
export interface ReassignmentStatus {
  summary: Reassignment;
  moving: ReassignmentPartitionItem[];
  /** URL of the next page of moving partitions, null when all are in `moving`. */
  more: string | null;
}
/** A reassignment that is still going (pending, running, paused, or held by the health interlocks). */
export const isLive = (state: ReassignmentState): boolean =>
  state === 'pending' || state === 'running' || state === 'paused' || state === 'held';
export type ReassignmentSummary = Schemas['ReassignmentSummary'];
export type ReassignmentList = Schemas['ReassignmentList'];
/** POST /reassignments body: fields with defaults are optional (the generated type marks them required). */
export type ReassignmentRequest = Omit<Schemas['ReassignmentRequest'], 'autoRemoveThrottle' | 'validateOnly' | 'addToExisting'> &
  Partial<Pick<Schemas['ReassignmentRequest'], 'autoRemoveThrottle' | 'validateOnly' | 'addToExisting'>>;
export type ReassignmentFile = Schemas['ReassignmentFile'];
export type ReassignmentPlan = Schemas['ReassignmentPlan'];
export type ReassignmentAccepted = Schemas['ReassignmentAccepted'];
export type ReassignmentCancelled = Schemas['ReassignmentCancelled'];
export type Throttles = Schemas['Throttles'];
export type Cluster = Schemas['Cluster'];
export type TopicList = Schemas['TopicList'];
export type Topic = Schemas['Topic'];
export type ResourceConfig = Schemas['ResourceConfig'];
export type ConfigChange = Omit<Schemas['ConfigChangeRequest'], 'validateOnly'>;
export type ConfigsChanged = Schemas['ConfigsChanged'];
export type ClientQuotaList = Schemas['ClientQuotaList'];
export type WhoAmI = Schemas['WhoAmI'];
export type Role = WhoAmI['role'];

/** PATCH /reassignments/{id}: any of throttle, concurrency, paused (at least one). */
export type ReassignmentPatch = Schemas['ReassignmentPatch'];

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
  /** Partitions it leads that are under-replicated; its replicas out of their ISR (gateways with the health interlocks). */
  underReplicated?: number;
  outOfSyncReplicas?: number;
}

/** POST /plans (gateways with planning). */
export interface PlanRequest {
  /** 'decommission', 'rebalance', 'replication-factor', 'rack-repair', or a goal a newer gateway knows. */
  goal: string;
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
  partitions: {
    topic: string;
    partition: number;
    currentReplicas: number[];
    targetReplicas: number[];
    adding: number[];
    removing: number[];
    bytes: number | null;
  }[];
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
  if (errors.length)
    text += `\n${errors
      .slice(0, 10)
      .map((e) => `  - ${e.path ? `${e.path}: ` : ''}${e.message}`)
      .join('\n')}${errors.length > 10 ? `\n  … ${errors.length - 10} more` : ''}`;
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
  /** GET /topics/{topic}/configs: every config with its source and synonyms (`overridesOnly`: includeDefaults=false). */
  topicConfigs(name: string, opts?: { overridesOnly?: boolean }): Promise<ResourceConfig[]>;
  /** PATCH /topics/{topic}/configs: set and delete in one request; the configs after it. */
  alterTopicConfigs(name: string, change: ConfigChange, opts?: { validateOnly?: boolean }): Promise<ConfigsChanged>;
  /** GET /brokers; null when this gateway does not have it. */
  brokers(): Promise<BrokerLoad[] | null>;
  /** POST /plans; null when this gateway does not have it. */
  plan(body: PlanRequest): Promise<PlanAnswer | null>;
  reassignments(): Promise<ReassignmentList>;
  reassignment(id: string): Promise<Reassignment>;
  /** 200 with the plan (validateOnly) or 202 with the accepted reassignment; `detail` adds per-partition rows. */
  startReassignment(body: ReassignmentRequest, opts?: { detail?: boolean }): Promise<ReassignmentAccepted | ReassignmentPlan>;
  patchReassignment(id: string, patch: ReassignmentPatch): Promise<Reassignment>;
  pauseReassignment(id: string): Promise<Reassignment>;
  resumeReassignment(id: string): Promise<Reassignment>;
  cancelReassignment(id: string, opts?: { rollback?: boolean; preserveThrottles?: boolean }): Promise<ReassignmentCancelled>;
  /** GET /reassignments/{id}/partitions: one page, in (topic, partition) order. */
  reassignmentPartitions(
    id: string,
    query?: { state?: PartitionState | 'all'; limit?: number; cursor?: string },
  ): Promise<ReassignmentPartitionPage>;
  /** The page a previous page's `next` names (a URL, absolute or relative to the gateway). */
  nextPage(next: string): Promise<ReassignmentPartitionPage>;
  /** The summary plus the first `limit` moving partitions (two requests). */
  reassignmentStatus(id: string, limit?: number): Promise<ReassignmentStatus>;
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
    const res = await doFetch(`${base}${path}${queryString(o.query)}`, {
      method,
      headers,
      ...(o.body !== undefined && { body: JSON.stringify(o.body) }),
    });
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
    // 'false' as a string: queryString leaves a false flag out.
    topicConfigs: async (name, o = {}) =>
      (
        await request<Schemas['ResourceConfigs']>('GET', `/topics/${enc(name)}/configs`, {
          ...(o.overridesOnly && { query: { includeDefaults: 'false' } }),
        })
      ).configs,
    alterTopicConfigs: (name, change, o = {}) =>
      request('PATCH', `/topics/${enc(name)}/configs`, { body: change, ...(o.validateOnly && { query: { validateOnly: true } }) }),
    brokers: async () => {
      const r = await optional(request<BrokerLoad[] | { brokers: BrokerLoad[] }>('GET', '/brokers'));
      return r === null ? null : Array.isArray(r) ? r : r.brokers;
    },
    plan: (body) => optional(request<PlanAnswer>('POST', '/plans', { body })),
    reassignments: () => request('GET', '/reassignments'),
    reassignment: (id) => request('GET', `/reassignments/${enc(id)}`),
    startReassignment: (body, o = {}) => request('POST', '/reassignments', { body, ...(o.detail && { query: { detail: true } }) }),
    patchReassignment: (id, patch) => request('PATCH', `/reassignments/${enc(id)}`, { body: patch }),
    pauseReassignment: (id) => request('PATCH', `/reassignments/${enc(id)}`, { body: { paused: true } }),
    resumeReassignment: (id) => request('PATCH', `/reassignments/${enc(id)}`, { body: { paused: false } }),
    cancelReassignment: (id, o = {}) =>
      request('DELETE', `/reassignments/${enc(id)}`, { query: { rollback: o.rollback, preserveThrottles: o.preserveThrottles } }),
    reassignmentPartitions: (id, query) => request('GET', `/reassignments/${enc(id)}/partitions`, { ...(query && { query }) }),
    nextPage(next) {
      // `next` is a URL the gateway wrote; keep only its path and query so that it goes to this
      // client's base (the gateway may sit behind a proxy that rewrites the host).
      const u = new URL(next, 'http://gateway.invalid');
      return request('GET', `${u.pathname}${u.search}`);
    },
    async reassignmentStatus(id, limit = 50) {
      const [summary, page] = await Promise.all([this.reassignment(id), this.reassignmentPartitions(id, { state: 'moving', limit })]);
      return { summary, moving: page.items, more: page.next };
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
export const roleAtLeast = (have: Role | null | undefined, need: Role): boolean =>
  have !== null && have !== undefined && ROLE_ORDER[have] >= ROLE_ORDER[need];
