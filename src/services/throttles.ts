// Replication throttles as resources (KIP-179's alterInterbrokerThrottledRates/Replicas):
// read every throttle in the cluster with its owner, set rates or replica lists as standing
// demands (optionally auto-removed or with a deadline), and remove them.
//
// Setting = write a throttle-request record (the demand), then a throttle sync (ledger, then
// configs). Removing = drop the named brokers/topics from every demand, then a sync: the
// domain removes exactly what the gateway added and restores prior values. Throttles someone
// else set are only touched with includeExternal=true, i.e. when the operator says so.
import { randomBytes } from 'node:crypto';
import {
  ALL_REPLICAS,
  FOLLOWER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_REPLICAS,
  LEADER_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  rateOwner,
  replicaEntry,
  EMPTY_THROTTLE_DEMAND,
  mergeThrottleDemands,
  reconcileThrottles,
  throttleResourcesToRead,
  replicaListOwnershipSteps,
  type ThrottleDemand,
  type TopicThrottleDemand,
  type BrokerThrottleDemand,
} from '../domain/reassignment/index.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { KafkaRequestError } from '../kafka/errors.js';
import { POLLED_READ_MAX_AGE_MS, RecentRead } from '../kafka/recent-read.js';
import { ledgerKey, RECORD_VERSION, throttleRequestKey, type ReassignmentRecord, type ThrottleRequestRecord } from '../state/records.js';
import { driveSteps } from '../event-loop-turns.js';
import { makePacer } from '../state/layout.js';
import type { StateStore, StateView } from '../state/store.js';
import type { ReassignmentConfig } from '../reconcile/config.js';
import { demandsThrottles, isLive, ledgerOf, liveDemands, orphanedId, orphanedLedger, partitionId } from '../reconcile/ownership.js';
import { applyAlterations, type ThrottleSync } from '../reconcile/throttle-sync.js';

export type Owner = 'gateway' | 'external' | 'mixed';

export interface RateThrottleView {
  broker: number;
  leaderRate: number | null;
  followerRate: number | null;
  owner: Owner;
  autoRemove: boolean;
  expiresAt: number | null;
  reassignments: string[];
}

export interface ReplicaThrottleView {
  topic: string;
  leader: string | null;
  follower: string | null;
  owner: Owner;
  autoRemove: boolean;
  expiresAt: number | null;
  reassignments: string[];
  /**
   * Entries the gateway added (the rest is someone else's). The ownership memo's frozen lists,
   * never copied per GET (~600,000 entries at 100k moving).
   */
  gatewayEntries: { leader: readonly string[]; follower: readonly string[] };
  /** `partition:broker` entries of each list as set (null for `*`). */
  leaderEntries: number | null;
  followerEntries: number | null;
}

/** A list that is `*`, as gatewayEntries shows it. */
const ALL_ONLY: readonly string[] = Object.freeze([ALL_REPLICAS]);

export interface ThrottlesView {
  rates: RateThrottleView[];
  replicas: ReplicaThrottleView[];
}

export interface RateRequest {
  broker: number;
  leaderRate?: number;
  followerRate?: number;
}

export interface ReplicaRequest {
  topic: string;
  partition?: number;
  /** Brokers whose replicas of `partition` are throttled as leaders; null = every replica of the topic (`*`). */
  leader?: number[] | null;
  follower?: number[] | null;
}

export interface SetOptions {
  autoRemove: boolean;
  ttlSeconds: number | null;
}

export interface FieldError {
  path: string;
  message: string;
}

/**
 * What a PUT came to, as outcome kinds (src/http maps them to statuses): `unknown-resource`
 * (a topic or partition that does not exist), `invalid` (a request that cannot be applied as
 * asked), `nothing-moving` (autoRemove with no reassignment in progress: it would have nothing
 * to wait for), or `ok`. Nothing is changed unless `ok`.
 */
export type SetResult =
  | { kind: 'unknown-resource'; errors: FieldError[] }
  | { kind: 'invalid'; errors: FieldError[] }
  | { kind: 'nothing-moving' }
  | { kind: 'ok'; id: string; view: ThrottlesView };

/** A demand as the reasons behind a resource: who wants it, whether it goes away by itself. */
interface DemandSource {
  demand: ThrottleDemand;
  autoRemove: boolean;
  expiresAt: number | null;
  reassignment: string | null;
}

function sources(view: StateView, now: number): DemandSource[] {
  const out: DemandSource[] = [];
  for (const r of view.reassignments.values()) {
    // A record whose moves are recorded as ended demands nothing any more (its end is being written).
    if (demandsThrottles(r) && r.throttleDemand)
      out.push({ demand: r.throttleDemand, autoRemove: r.autoRemoveThrottle, expiresAt: null, reassignment: r.id });
  }
  for (const t of view.throttleRequests.values()) {
    if (t.expiresAt !== null && t.expiresAt <= now) continue;
    out.push({
      demand: t.demand,
      autoRemove: t.autoRemove || t.expiresAt !== null,
      expiresAt: t.expiresAt,
      reassignment: t.fromReassignment ?? null,
    });
  }
  return out;
}

function summarise(list: DemandSource[]): { autoRemove: boolean; expiresAt: number | null; reassignments: string[] } {
  const expiries = list.map((s) => s.expiresAt).filter((e): e is number => e !== null);
  return {
    // Nothing demands it any more (about to be removed) counts as auto-removing.
    autoRemove: list.every((s) => s.autoRemove),
    expiresAt: expiries.length && expiries.length === list.length ? Math.max(...expiries) : null,
    reassignments: [...new Set(list.map((s) => s.reassignment).filter((r): r is string => r !== null))].sort(),
  };
}

const toRate = (v: string | null): number | null => (v === null ? null : Number(v));

function combineOwners(owners: (Owner | null)[]): Owner {
  const set = new Set(owners.filter((o): o is Owner => o !== null));
  if (set.size === 1) return [...set][0];
  return set.size === 0 ? 'external' : 'mixed';
}

export class ThrottleService {
  readonly #kafka: KafkaAdmin;
  readonly #store: StateStore;
  readonly #sync: ThrottleSync;
  readonly #config: ReassignmentConfig;
  readonly #now: () => number;
  readonly #sliceMs: number;
  /** Every topic's and live broker's throttle configs, shared by GETs within POLLED_READ_MAX_AGE_MS (kafka/recent-read.ts). */
  readonly #configs: RecentRead<Awaited<ReturnType<ThrottleSync['readConfigs']>>>;

  constructor(deps: {
    kafka: KafkaAdmin;
    store: StateStore;
    throttles: ThrottleSync;
    config: ReassignmentConfig;
    now?: () => number;
    sliceMs?: number;
  }) {
    this.#kafka = deps.kafka;
    this.#store = deps.store;
    this.#sync = deps.throttles;
    this.#config = deps.config;
    this.#now = deps.now ?? Date.now;
    this.#sliceMs = deps.sliceMs ?? LIST_SLICE_MS;
    const kafka = deps.kafka;
    this.#configs = new RecentRead(
      async () => {
        const [topics, cluster] = await Promise.all([kafka.listTopics(), kafka.describeCluster()]);
        return this.#sync.readConfigs(
          topics.map((t) => t.name),
          cluster.brokers.map((b) => b.id),
        );
      },
      POLLED_READ_MAX_AGE_MS,
      () => kafka.writeVersion('configs'),
    );
  }

  /** Every replication throttle in the cluster (every topic, every live broker), with its owner. */
  async list(): Promise<ThrottlesView> {
    const results = await this.#configs.get();
    const view = await this.#store.refresh();
    // Every topic's lists split by owner: at 100,000 moving partitions 200 lists of 1,000-3,000
    // entries, ~100-300 ms in one go while /healthz and every other request waited. Done in
    // slices (per resource, and every STEP_ITEMS entries of a long list) with the loop given
    // back between them; the view may change meanwhile, the answer is for the one read above.
    const pace = makePacer(this.#sliceMs);
    const ledger = ledgerOf(view.ledger.values());
    const srcs = sources(view, this.#now());
    const rates: RateThrottleView[] = [];
    const replicas: ReplicaThrottleView[] = [];
    for (const r of results) {
      await pace();
      if (!r.ok) {
        // A topic deleted meanwhile has no throttles; anything else must not be reported as "none".
        if (r.kind === 'topic' && r.error.code === 3) continue;
        throw new KafkaRequestError('kafka', r.error);
      }
      if (r.kind === 'broker') {
        const leader = r.value[LEADER_THROTTLED_RATE] ?? null;
        const follower = r.value[FOLLOWER_THROTTLED_RATE] ?? null;
        if (leader === null && follower === null) continue;
        const owned = ledger.brokers[r.name];
        const owner = combineOwners([rateOwner(leader, owned?.leaderRate), rateOwner(follower, owned?.followerRate)]);
        const s = summarise(srcs.filter((x) => r.name in x.demand.brokers));
        rates.push({
          broker: Number(r.name),
          leaderRate: toRate(leader),
          followerRate: toRate(follower),
          owner,
          ...(owner === 'external' ? { autoRemove: false, expiresAt: null, reassignments: [] } : s),
        });
      } else {
        const leader = r.value[LEADER_THROTTLED_REPLICAS] ?? null;
        const follower = r.value[FOLLOWER_THROTTLED_REPLICAS] ?? null;
        if ((leader ?? '') === '' && (follower ?? '') === '') continue;
        const owned = ledger.topics[r.name];
        const lo = await driveSteps(replicaListOwnershipSteps(leader, owned?.leader), pace);
        const fo = await driveSteps(replicaListOwnershipSteps(follower, owned?.follower), pace);
        const owner = combineOwners([lo.owner, fo.owner]);
        const s = summarise(srcs.filter((x) => r.name in x.demand.topics));
        replicas.push({
          topic: r.name,
          leader,
          follower,
          owner,
          ...(owner === 'external' ? { autoRemove: false, expiresAt: null, reassignments: [] } : s),
          gatewayEntries: { leader: lo.all === 'gateway' ? ALL_ONLY : lo.gateway, follower: fo.all === 'gateway' ? ALL_ONLY : fo.gateway },
          leaderEntries: lo.all !== null ? null : lo.gateway.length + lo.external.length,
          followerEntries: fo.all !== null ? null : fo.gateway.length + fo.external.length,
        });
      }
    }
    rates.sort((a, b) => a.broker - b.broker);
    replicas.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
    return { rates, replicas };
  }

  async setRates(rates: RateRequest[], opts: SetOptions, requestedBy: string | null): Promise<SetResult> {
    const cluster = await this.#kafka.describeCluster();
    const known = new Set(cluster.brokers.map((b) => b.id));
    const errors = rates.flatMap((r, i) =>
      known.has(r.broker) ? [] : [{ path: `/body/rates/${i}/broker`, message: `Broker ${r.broker} is not in the cluster.` }],
    );
    if (errors.length) return { kind: 'invalid', errors };
    const brokers: Record<string, BrokerThrottleDemand> = {};
    for (const r of rates) {
      brokers[String(r.broker)] = {
        ...(r.leaderRate !== undefined && { leaderRate: r.leaderRate }),
        ...(r.followerRate !== undefined && { followerRate: r.followerRate }),
      };
    }
    return this.#put({ topics: {}, brokers }, opts, requestedBy);
  }

  async setReplicas(items: ReplicaRequest[], opts: SetOptions, requestedBy: string | null): Promise<SetResult> {
    const placement = await this.#kafka.describePartitions([...new Set(items.map((i) => i.topic))]);
    const cluster = await this.#kafka.describeCluster();
    const brokers = new Set(cluster.brokers.map((b) => b.id));
    const errors404: FieldError[] = [];
    const errors422: FieldError[] = [];
    const topics: Record<string, { leader?: Set<string> | '*'; follower?: Set<string> | '*' }> = {};
    items.forEach((item, i) => {
      const t = placement.find((x) => x.name === item.topic);
      if (!t) return void errors404.push({ path: `/body/replicas/${i}/topic`, message: `Unable to find a topic named ${item.topic}.` });
      if (item.partition !== undefined && !t.partitions.some((p) => p.partition === item.partition)) {
        return void errors404.push({
          path: `/body/replicas/${i}/partition`,
          message: `Unable to find partition ${item.topic}-${item.partition}.`,
        });
      }
      const entry = (topics[item.topic] ??= {});
      for (const dir of ['leader', 'follower'] as const) {
        const list = item[dir];
        if (list === undefined) continue;
        if (list === null) {
          entry[dir] = ALL_REPLICAS;
          continue;
        }
        if (item.partition === undefined) {
          errors422.push({
            path: `/body/replicas/${i}/partition`,
            message: `A list of brokers throttles replicas of one partition: give "partition", or null for every replica (*).`,
          });
          continue;
        }
        const unknown = list.filter((b) => !brokers.has(b));
        if (unknown.length) errors422.push({ path: `/body/replicas/${i}/${dir}`, message: `Unknown broker id(s) ${unknown.join(',')}.` });
        if (entry[dir] !== ALL_REPLICAS) {
          const set = entry[dir] ?? new Set<string>();
          for (const b of list) set.add(replicaEntry(item.partition, b));
          entry[dir] = set;
        }
      }
    });
    if (errors404.length) return { kind: 'unknown-resource', errors: errors404 };
    if (errors422.length) return { kind: 'invalid', errors: errors422 };
    const demandTopics: Record<string, TopicThrottleDemand> = {};
    for (const [t, d] of Object.entries(topics)) {
      demandTopics[t] = {
        ...(d.leader !== undefined && { leader: d.leader === ALL_REPLICAS ? ALL_REPLICAS : [...d.leader].sort() }),
        ...(d.follower !== undefined && { follower: d.follower === ALL_REPLICAS ? ALL_REPLICAS : [...d.follower].sort() }),
      };
    }
    return this.#put({ topics: demandTopics, brokers: {} }, opts, requestedBy);
  }

  async #put(demand: ThrottleDemand, opts: SetOptions, requestedBy: string | null): Promise<SetResult> {
    const now = this.#now();
    let waitFor: string[] | null = null;
    if (opts.autoRemove) {
      // autoRemove = "until the moves in progress now have finished". With none in progress it
      // would wait for whatever reassignment someone starts next, maybe days later: refused,
      // nothing written (ttlSeconds is the way to say "for this long").
      const moving = await this.#kafka.listPartitionReassignments();
      if (moving.length === 0) return { kind: 'nothing-moving' };
      waitFor = moving.map((m) => partitionId(m.topic, m.partition)).sort();
    }
    const record: ThrottleRequestRecord = {
      kind: 'throttle-request',
      v: RECORD_VERSION,
      id: `t-${now.toString(36)}-${randomBytes(4).toString('hex')}`,
      demand,
      autoRemove: opts.autoRemove,
      waitFor,
      expiresAt: opts.ttlSeconds === null ? null : now + opts.ttlSeconds * 1000,
      owner: this.#config.instanceId,
      requestedBy,
      createdAt: now,
      updatedAt: now,
    };
    await this.#store.write([record]);
    const sync = await this.#sync.sync();
    if (sync.failures.length) throw new KafkaRequestError('kafka', sync.failures[0].error);
    return { kind: 'ok', id: record.id, view: await this.list() };
  }

  /**
   * Recovery after the state topic was lost (deleted, re-created, reset): removes the throttles
   * the gateway had set according to the ledger of the lost topic, restoring prior values,
   * except on resources the (new) state demands or owns now. That ledger is known from this
   * process's memory (it was running when the topic went) or from the `orphaned/...` copies
   * that such an instance wrote into the new topic (ThrottleSync.persistLostLedger), so any
   * instance can do it, also one started after the loss. `dryRun` answers the changes
   * without making them. When no instance that read the lost topic ever saw the new one,
   * nothing is known (lostLedgerKnown false): see the README.
   */
  async cleanupOrphans(dryRun: boolean): Promise<OrphanCleanup> {
    // No state at all: only this process's memory of the lost ledger, and nothing demanded or owned now.
    const view = await this.#store.refresh().catch(() => null);
    const orphaned = orphanedLedger(
      view ?? { reassignments: new Map(), throttleRequests: new Map(), ledger: new Map(), progress: new Map() },
      this.#store.lostLedger(),
    );
    const lost = ledgerOf(orphaned.values());
    const resources = throttleResourcesToRead(EMPTY_THROTTLE_DEMAND, lost);
    if (resources.topics.length === 0 && resources.brokers.length === 0) return { dryRun, lostLedgerKnown: orphaned.size > 0, changes: [] };
    // Resources the live machinery answers for now are left to it.
    let busy = { topics: new Set<string>(), brokers: new Set<string>() };
    if (view) {
      const live = throttleResourcesToRead(mergeThrottleDemands(liveDemands(view, this.#now())), ledgerOf(view.ledger.values()));
      busy = { topics: new Set(live.topics), brokers: new Set(live.brokers.map(String)) };
    }
    const results = await this.#sync.readConfigs(
      resources.topics.filter((t) => !busy.topics.has(t)),
      resources.brokers.filter((b) => !busy.brokers.has(String(b))),
    );
    const topics: Record<string, { leader: string | null; follower: string | null }> = {};
    const brokers: Record<string, { leaderRate: string | null; followerRate: string | null }> = {};
    const handled: string[] = [];
    for (const r of results) {
      if (!r.ok) {
        if (r.kind === 'topic' && r.error.code === 3) handled.push(`topic/${r.name}`); // a deleted topic took its configs with it
        continue;
      }
      handled.push(`${r.kind}/${r.name}`);
      if (r.kind === 'topic')
        topics[r.name] = { leader: r.value[LEADER_THROTTLED_REPLICAS] ?? null, follower: r.value[FOLLOWER_THROTTLED_REPLICAS] ?? null };
      else brokers[r.name] = { leaderRate: r.value[LEADER_THROTTLED_RATE] ?? null, followerRate: r.value[FOLLOWER_THROTTLED_RATE] ?? null };
    }
    const plan = reconcileThrottles({ topics, brokers }, EMPTY_THROTTLE_DEMAND, lost);
    const changes = plan.alterations.map((a) => ({
      resourceType: a.resourceType,
      resourceName: a.resourceName,
      configs: a.configs.map((c) => ({ name: c.name, operation: c.operation, value: c.value })),
    }));
    if (!dryRun) {
      if (plan.alterations.length) {
        const [failed] = await applyAlterations(this.#kafka, plan.alterations);
        if (failed) throw new KafkaRequestError('kafka', failed.error);
      }
      this.#store.forgetLost(handled.flatMap((id) => [id, orphanedId(id)]));
      const copies = handled.map(orphanedId).filter((id) => view?.ledger.has(id));
      if (copies.length) await this.#store.write([], copies.map(ledgerKey));
    }
    return { dryRun, lostLedgerKnown: true, changes };
  }

  /**
   * Removes rates on `brokers` (null = every broker) or replica throttles on `topics` (null =
   * every topic): the gateway's by dropping them from every demand, and with includeExternal
   * everybody else's by deleting the configs too.
   */
  async remove(what: 'rates' | 'replicas', names: string[] | null, includeExternal: boolean): Promise<ThrottlesView> {
    const view = await this.#store.refresh();
    const field = what === 'rates' ? 'brokers' : 'topics';
    const match = (name: string) => names === null || names.includes(name);
    const writes: (ReassignmentRecord | ThrottleRequestRecord)[] = [];
    const deletes: string[] = [];
    const now = this.#now();
    for (const r of view.reassignments.values()) {
      if (!isLive(r) || !r.throttleDemand) continue;
      const next = without(r.throttleDemand, field, match);
      if (next !== r.throttleDemand) writes.push({ ...r, throttleDemand: next, updatedAt: now });
    }
    for (const t of view.throttleRequests.values()) {
      const next = without(t.demand, field, match);
      if (next === t.demand) continue;
      if (Object.keys(next.topics).length === 0 && Object.keys(next.brokers).length === 0) deletes.push(throttleRequestKey(t.id));
      else writes.push({ ...t, demand: next, updatedAt: now });
    }
    if (writes.length || deletes.length) await this.#store.write(writes, deletes);
    const sync = await this.#sync.sync();
    if (sync.failures.length) throw new KafkaRequestError('kafka', sync.failures[0].error);

    if (includeExternal) {
      // Only the resources that have a throttle now are claimed and cleared (claims stay small).
      const current = await this.list();
      const targets =
        what === 'rates'
          ? { topics: [], brokers: current.rates.filter((r) => match(String(r.broker))).map((r) => r.broker) }
          : { topics: current.replicas.filter((r) => match(r.topic)).map((r) => r.topic), brokers: [] };
      // Under a claim like every other throttle change: never interleaved with another instance's sync.
      const out = await this.#sync.deleteAll(targets);
      if (out.failures.length) throw new KafkaRequestError('kafka', out.failures[0].error);
    }
    return this.list();
  }
}

/** Longest slice of synchronous work list() does before giving the event loop a turn (ms). */
const LIST_SLICE_MS = 10;

export interface OrphanCleanup {
  dryRun: boolean;
  /** This instance saw the state topic reset or go missing, and kept the ledger it had read. */
  lostLedgerKnown: boolean;
  /** The changes (done, or that would be done): prior values restored, the gateway's entries removed. */
  changes: {
    resourceType: 'topic' | 'broker';
    resourceName: string;
    configs: { name: string; operation: 'SET' | 'DELETE'; value: string | null }[];
  }[];
}

/** The demand without the named brokers/topics; the same object when nothing matched. */
function without(demand: ThrottleDemand, field: 'brokers' | 'topics', match: (name: string) => boolean): ThrottleDemand {
  const keys = Object.keys(demand[field]).filter(match);
  if (keys.length === 0) return demand;
  const rest = Object.fromEntries(Object.entries(demand[field]).filter(([k]) => !keys.includes(k)));
  return { ...demand, [field]: rest };
}
