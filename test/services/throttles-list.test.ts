// ThrottleService.list() (GET /throttles) over many topics with long throttled-replica lists:
// it gives the event loop turns while it splits the lists by owner (between resources, and
// within a long list), and answers exactly what it answered when it ran in one go.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatThrottledReplicas, STEP_ITEMS } from '../../src/domain/reassignment/index.js';
import type { KafkaAdmin } from '../../src/kafka/kafka-admin.js';
import type { ReassignmentConfig } from '../../src/reconcile/config.js';
import { ThrottleService, type ThrottlesView } from '../../src/services/throttles.js';
import type { ThrottleSync } from '../../src/reconcile/throttle-sync.js';
import type { LedgerRecord, ThrottleRequestRecord } from '../../src/state/records.js';
import type { StateStore, StateView } from '../../src/state/store.js';

const TOPICS = 30;
const PER_TOPIC = 1000;
const BROKERS = 12;
const NOW = 1_000_000;
const LEADER = 'leader.replication.throttled.replicas';
const FOLLOWER = 'follower.replication.throttled.replicas';

const sorted = (xs: string[]) => [...xs].sort();

/**
 * A cluster as GET /throttles sees it at scale: TOPICS topics of PER_TOPIC partitions, each with
 * 3 leader entries per partition and 1 follower entry, all the gateway's, plus a few topics
 * with someone else's entries, an unsorted value, `*`, and one very long list; rates on every
 * broker. The ledger objects are new on every call (nothing memoised from an earlier test).
 */
function fixture() {
  const configs: { kind: 'topic' | 'broker'; name: string; ok: true; value: Record<string, string> }[] = [];
  const ledger = new Map<string, LedgerRecord>();
  const expected: ThrottlesView = { rates: [], replicas: [] };
  const reassignments = ['r-1'];
  const demandTopics: Record<string, { leader: string[] }> = {};
  const led = (id: string, body: Pick<LedgerRecord, 'topic' | 'broker'>) =>
    ledger.set(id, { kind: 'ledger', v: 1, id, ...body, updatedAt: 0 });
  const topic = (name: string, leader: string[], follower: string[], opts: { external?: string[]; leaderValue?: string } = {}) => {
    const external = opts.external ?? [];
    const leaderValue = opts.leaderValue ?? formatThrottledReplicas([...leader, ...external]);
    const followerValue = formatThrottledReplicas(follower);
    configs.push({ kind: 'topic', name, ok: true, value: { [LEADER]: leaderValue, [FOLLOWER]: followerValue } });
    led(`topic/${name}`, {
      topic: {
        leader: { prior: external.length ? formatThrottledReplicas(external) : null, added: sorted(leader) },
        follower: { prior: null, added: sorted(follower) },
      },
    });
    demandTopics[name] = { leader };
    expected.replicas.push({
      topic: name,
      leader: leaderValue,
      follower: followerValue,
      owner: external.length ? 'mixed' : 'gateway',
      autoRemove: true,
      expiresAt: null,
      reassignments,
      gatewayEntries: { leader: sorted(leader), follower: sorted(follower) },
      leaderEntries: leader.length + external.length,
      followerEntries: follower.length,
    });
  };
  for (let t = 0; t < TOPICS; t++) {
    const leader: string[] = [];
    const follower: string[] = [];
    for (let p = 0; p < PER_TOPIC; p++) {
      for (let k = 0; k < 3; k++) leader.push(`${p}:${(t + p + k) % BROKERS}`);
      follower.push(`${p}:${(t + p + 3) % BROKERS}`);
    }
    if (t === 1) topic(`s${t}`, leader, follower, { external: ['5000:1', '7:11'] });
    else if (t === 2)
      topic(`s${t}`, leader, follower, { leaderValue: [...leader].reverse().join(',') }); // written unsorted by someone
    else topic(`s${t}`, leader, follower);
  }
  // One list longer than several steps.
  const big = Array.from({ length: 6 * STEP_ITEMS }, (_, i) => `${Math.floor(i / 3)}:${i % 3}`);
  topic('t-big', big, []);
  // Someone else's `*`, not in the ledger: external, no reasons.
  configs.push({ kind: 'topic', name: 'u-star', ok: true, value: { [FOLLOWER]: '*' } });
  expected.replicas.push({
    topic: 'u-star',
    leader: null,
    follower: '*',
    owner: 'external',
    autoRemove: false,
    expiresAt: null,
    reassignments: [],
    gatewayEntries: { leader: [], follower: [] },
    leaderEntries: 0,
    followerEntries: null,
  });
  for (let b = 0; b < BROKERS; b++) {
    configs.push({
      kind: 'broker',
      name: String(b),
      ok: true,
      value: { 'leader.replication.throttled.rate': '1024', 'follower.replication.throttled.rate': '1024' },
    });
    led(`broker/${b}`, { broker: { leaderRate: { prior: null, values: ['1024'] }, followerRate: { prior: null, values: ['1024'] } } });
    expected.rates.push({
      broker: b,
      leaderRate: 1024,
      followerRate: 1024,
      owner: 'gateway',
      autoRemove: true,
      expiresAt: null,
      reassignments,
    });
  }
  // GET's order: topics by name (as strings: s0, s1, s10, ...), brokers by id.
  expected.replicas.sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0));
  const request: ThrottleRequestRecord = {
    kind: 'throttle-request',
    v: 1,
    id: 't-1',
    demand: {
      topics: demandTopics,
      brokers: Object.fromEntries(Array.from({ length: BROKERS }, (_, b) => [String(b), { leaderRate: 1024, followerRate: 1024 }])),
    },
    autoRemove: true,
    waitFor: null,
    expiresAt: null,
    fromReassignment: 'r-1',
    owner: 'i',
    requestedBy: null,
    createdAt: 0,
    updatedAt: 0,
  };
  const view: StateView = { reassignments: new Map(), throttleRequests: new Map([[request.id, request]]), ledger, progress: new Map() };
  const names = configs.filter((c) => c.kind === 'topic').map((c) => c.name);
  const kafka = {
    writeVersion: () => 0,
    listTopics: async () => names.map((name) => ({ name, topicId: null, partitions: PER_TOPIC, replicationFactor: 3, internal: false })),
    describeCluster: async () => ({
      clusterId: null,
      controllerId: 0,
      brokers: Array.from({ length: BROKERS }, (_, id) => ({ id, host: 'h', port: 1, rack: null })),
    }),
  };
  const sync = { readConfigs: async () => configs };
  const store = { refresh: async () => view };
  const service = (sliceMs: number) =>
    new ThrottleService({
      kafka: kafka as unknown as KafkaAdmin,
      store: store as unknown as StateStore,
      throttles: sync as unknown as ThrottleSync,
      config: {} as ReassignmentConfig,
      now: () => NOW,
      sliceMs,
    });
  return { service, expected };
}

/** `fn`'s value and how many turns the event loop made while it ran (an immediate that re-queues itself counts them). */
async function turnsDuring<T>(fn: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await fn();
    return { value, turns };
  } finally {
    on = false;
  }
}

describe('ThrottleService.list() at scale', () => {
  it('in one go (no slice budget spent): no turn of the event loop, the expected answer', async () => {
    // The control: the fakes answer in microtasks, so any turn counted below is list()'s own yield.
    const { service, expected } = fixture();
    const { value, turns } = await turnsDuring(() => service(Number.POSITIVE_INFINITY).list());
    assert.equal(turns, 0);
    assert.equal(JSON.stringify(value), JSON.stringify(expected));
  });

  it('sliced: the event loop turns between resources and within a long list; the same JSON', async () => {
    const { service, expected } = fixture();
    const { value, turns } = await turnsDuring(() => service(0).list());
    // A yield before each of the TOPICS + 2 topics and BROKERS brokers, and every STEP_ITEMS entries of t-big's list.
    assert.ok(turns >= TOPICS + 2 + BROKERS + 5, `the loop turned ${turns} times`);
    assert.equal(JSON.stringify(value), JSON.stringify(expected));
    // Listed again (the splits memoised now): the same answer.
    const again = await service(0).list();
    assert.equal(JSON.stringify(again), JSON.stringify(expected));
  });
});
