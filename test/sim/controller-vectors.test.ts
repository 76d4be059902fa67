// Replays Apache Kafka 3.9's own controller output (../shared/kafka-protocol/vectors/
// controller-reassignments.json: 31 scenarios, 148 steps of ReplicationControlManager driven step
// by step) against the simulator, over the wire. Each scenario gets a fresh 4-broker cluster;
// every request goes over TCP (AlterPartitionReassignments, CreatePartitions, DeleteTopics,
// CreateTopics) and every step's state is read back over TCP (Metadata for replicas, ISR and
// leader; ListPartitionReassignments for adding/removing replicas). Asserted per step: every
// per-partition error (code and message, null included, in order), each partition's replicas,
// ISR (in order: the leader appends a replica that caught up, Partition.scala maybeExpandIsr, and
// the controller keeps the order it is given), leader, leader epoch, adding and removing
// replicas, and what ListPartitionReassignments shows. (The partition epoch is not visible over
// the wire.)
//
// How the vector's steps map onto the wire:
// - `alterPartition(leader)` is the partition leader growing the ISR once a new replica caught up.
//   Every new replica copies a seeded log here under a follower throttle of 0 bytes/s (cluster
//   default `follower.replication.throttled.rate=0`, every replica listed in the topic's
//   `follower.replication.throttled.replicas`), so nothing catches up by itself; the step takes the
//   replicas it adds out of that list (IncrementalAlterConfigs) and waits until the cluster shows
//   the step's state. A step Kafka's controller refused (INELIGIBLE_REPLICA: the leader proposed
//   a fenced replica) is a proposal the simulator's leaders never make: nothing may change.
// - "fenced broker N" stops broker N. Scenario E-createPartitions fences brokers 3 then 2
//   between steps 12 and 13 without a step of its own (its step 13 state shows it: partition 1,
//   [2,3], keeps 2 as its last ISR member, so 3 went first).
// - Placement without assignments: Kafka's StripedReplicaPlacer starts at a random broker; the
//   vectors' controller drew broker 2, so the clusters here use the striped placer with that draw.
//
// The vectors live beside the repository (../shared); where they are missing (a clone of the
// repository alone, as in CI) the test is skipped with a message saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';
import { eventually } from '../eventually.js';
import { assertShared, skipWithoutShared } from '../shared-files.js';

const here = dirname(fileURLToPath(import.meta.url));
const VECTOR_FILE = 'shared/kafka-protocol/vectors/controller-reassignments.json';
// ../shared beside the repository; a git worktree under <dir>/wt/<name> looks two levels up.
const VECTORS =
  process.env.KAFKA_CONTROLLER_VECTORS ??
  [resolve(here, '../../..', VECTOR_FILE), resolve(here, '../../../..', VECTOR_FILE)].find((p) => existsSync(p)) ??
  resolve(here, '../../..', VECTOR_FILE);
const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const BROKERS = [0, 1, 2, 3];

interface PartitionStateV {
  replicas: number[];
  isr: number[];
  leader: number;
  leaderEpoch: number;
  addingReplicas: number[];
  removingReplicas: number[];
}
interface ListedV {
  partition: string;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}
interface StepV {
  scenario: string;
  step: number;
  desc: string;
  request?: any;
  response?: any;
  state: { partitions: Record<string, PartitionStateV | 'absent'>; listPartitionReassignments: ListedV[] };
}

function loadScenarios(): Map<string, StepV[]> {
  const steps = JSON.parse(readFileSync(VECTORS, 'utf8')) as StepV[];
  const out = new Map<string, StepV[]>();
  for (const s of steps) {
    if (!out.has(s.scenario)) out.set(s.scenario, []);
    out.get(s.scenario)!.push(s);
  }
  return out;
}

const splitKey = (key: string): { topic: string; partition: number } => {
  const i = key.lastIndexOf('-', key.length - 1);
  // "t--1" is partition -1 of t
  const j = key[i - 1] === '-' ? i - 1 : i;
  return { topic: key.slice(0, j), partition: Number(key.slice(j + 1)) };
};

/** Fresh cluster + the helpers one scenario needs. */
class Harness {
  private held = new Set<number>(BROKERS);
  readonly fenced = new Set<number>();
  constructor(readonly sim: Simulator) {}

  private port(): number {
    return this.sim.endpoints().find((e) => !this.fenced.has(e.id))!.port;
  }

  async send(apiKey: number, version: number, body: unknown): Promise<any> {
    return request(this.port(), apiKey, version, body);
  }

  private throttledList(): string {
    const out: string[] = [];
    for (let p = 0; p < 16; p++) for (const b of this.held) out.push(`${p}:${b}`);
    return out.join(',');
  }

  async setup(): Promise<void> {
    const res = await this.send(44, 1, {
      resources: [
        { resourceType: 4, resourceName: '', configs: [{ name: 'follower.replication.throttled.rate', configOperation: 0, value: '0' }] },
      ],
      validateOnly: false,
    });
    assert.equal(res.responses[0].errorCode, 0, res.responses[0].errorMessage);
  }

  async createTopic(name: string, replicas: number[][]): Promise<void> {
    const res = await this.send(19, 7, {
      topics: [
        {
          name,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: replicas.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
          configs: [{ name: 'follower.replication.throttled.replicas', value: this.throttledList() }],
        },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    assert.equal(res.topics[0].errorCode, 0, res.topics[0].errorMessage);
  }

  async release(brokers: number[], topics: string[]): Promise<void> {
    for (const b of brokers) this.held.delete(b);
    for (const topic of topics) {
      const res = await this.send(44, 1, {
        resources: [
          {
            resourceType: 2,
            resourceName: topic,
            configs: [{ name: 'follower.replication.throttled.replicas', configOperation: 0, value: this.throttledList() }],
          },
        ],
        validateOnly: false,
      });
      assert.equal(res.responses[0].errorCode, 0, res.responses[0].errorMessage);
    }
  }

  /** The cluster as the vector describes it, for the partitions (and topics) the vector names. */
  async observe(expected: StepV['state']): Promise<StepV['state']> {
    const md = await this.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const lpr = await this.send(46, 0, { timeoutMs: 5000, topics: null });
    assert.equal(lpr.errorCode, 0, lpr.errorMessage);
    const listed: ListedV[] = [];
    for (const t of lpr.topics) {
      for (const p of t.partitions) {
        listed.push({
          partition: `${t.name}-${p.partitionIndex}`,
          replicas: p.replicas,
          addingReplicas: p.addingReplicas,
          removingReplicas: p.removingReplicas,
        });
      }
    }
    const byKey = new Map(listed.map((l) => [l.partition, l]));
    const partitions: StepV['state']['partitions'] = {};
    const topicsNamed = new Set(Object.keys(expected.partitions).map((k) => (expected.partitions[k] === 'absent' ? k : splitKey(k).topic)));
    for (const name of topicsNamed) {
      const t = md.topics.find((x: any) => x.name === name && x.errorCode === 0);
      if (!t) {
        partitions[name] = 'absent';
        continue;
      }
      for (const p of [...t.partitions].sort((a: any, b: any) => a.partitionIndex - b.partitionIndex)) {
        const key = `${name}-${p.partitionIndex}`;
        partitions[key] = {
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          leader: p.leaderId,
          leaderEpoch: p.leaderEpoch,
          addingReplicas: byKey.get(key)?.addingReplicas ?? [],
          removingReplicas: byKey.get(key)?.removingReplicas ?? [],
        };
      }
    }
    return { partitions, listPartitionReassignments: listed };
  }
}

/** The vector's state with the fields compared here (ISR in Kafka's order). */
function normalize(state: StepV['state']): StepV['state'] {
  const partitions: StepV['state']['partitions'] = {};
  for (const [k, v] of Object.entries(state.partitions)) {
    partitions[k] =
      v === 'absent'
        ? 'absent'
        : {
            replicas: v.replicas,
            isr: v.isr,
            leader: v.leader,
            leaderEpoch: v.leaderEpoch,
            addingReplicas: v.addingReplicas,
            removingReplicas: v.removingReplicas,
          };
  }
  return {
    partitions,
    listPartitionReassignments: state.listPartitionReassignments.map((l) => ({
      partition: l.partition,
      replicas: l.replicas,
      addingReplicas: l.addingReplicas,
      removingReplicas: l.removingReplicas,
    })),
  };
}

async function waitForState(h: Harness, want: StepV['state'], label: string): Promise<void> {
  await eventually(
    `${label}: state`,
    async () => {
      assert.deepEqual(await h.observe(want), want, `${label}: state`);
      return true;
    },
    { timeoutMs: 20_000, everyMs: 5 },
  );
}

async function runStep(h: Harness, s: StepV, prev: StepV | undefined): Promise<void> {
  const label = `${s.scenario} step ${s.step} (${s.desc})`;
  const want = normalize(s.state);
  const r = s.request;
  if (r === undefined) {
    const fence = /fenced broker (\d+)/.exec(s.desc);
    const recreate = /^recreate (\S+)/.exec(s.desc);
    if (s.step === 1 || recreate) {
      const topic = recreate?.[1] ?? 't';
      const parts = Object.entries(s.state.partitions).filter(([k]) => splitKey(k).topic === topic) as [string, PartitionStateV][];
      await h.createTopic(
        topic,
        parts.sort(([a], [b]) => splitKey(a).partition - splitKey(b).partition).map(([, v]) => v.replicas),
      );
    } else if (fence) {
      h.fenced.add(Number(fence[1]));
      await h.sim.stopBroker(Number(fence[1]));
    } else {
      assert.fail(`${label}: step without a request that this test does not know how to drive`);
    }
    assert.deepEqual(await h.observe(want), want, `${label}: state`);
    return;
  }
  if (s.scenario === 'E-createPartitions' && s.step === 13) {
    for (const b of [3, 2]) {
      h.fenced.add(b);
      await h.sim.stopBroker(b);
    }
  }
  switch (r.op) {
    case 'alterPartitionReassignments': {
      const topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[] = [];
      for (const e of r.entries) {
        let t = topics.find((x) => x.name === e.topic);
        if (!t) topics.push((t = { name: e.topic, partitions: [] }));
        t.partitions.push({ partitionIndex: e.partition, replicas: e.replicas });
      }
      const res = await h.send(45, 0, { timeoutMs: 5000, topics });
      assert.equal(res.errorCode, 0);
      assert.equal(res.errorMessage, null);
      const got = res.responses.flatMap((t: any) =>
        t.partitions.map((p: any) => ({
          partition: `${t.name}-${p.partitionIndex}`,
          errorCode: p.errorCode,
          errorMessage: p.errorMessage,
        })),
      );
      const expected = s.response.map((x: any) => ({ partition: x.partition, errorCode: x.errorCode, errorMessage: x.errorMessage }));
      assert.deepEqual(got, expected, `${label}: response`);
      assert.deepEqual(await h.observe(want), want, `${label}: state`);
      return;
    }
    case 'createPartitions': {
      const res = await h.send(37, 3, {
        topics: [
          {
            name: r.topic,
            count: r.count,
            assignments: r.assignments === null ? null : r.assignments.map((brokerIds: number[]) => ({ brokerIds })),
          },
        ],
        timeoutMs: 5000,
        validateOnly: false,
      });
      const got = res.results.map((x: any) => ({ topic: x.name, errorCode: x.errorCode, errorMessage: x.errorMessage }));
      assert.deepEqual(
        got,
        s.response.map((x: any) => ({ topic: x.topic, errorCode: x.errorCode, errorMessage: x.errorMessage })),
        `${label}: response`,
      );
      assert.deepEqual(await h.observe(want), want, `${label}: state`);
      return;
    }
    case 'deleteTopics': {
      const res = await h.send(20, 6, { topics: [{ name: r.topic, topicId: ZERO_ID }], timeoutMs: 5000 });
      const x = res.responses[0];
      assert.equal(s.response.error, 'NONE', `${label}: only successful deletes are in the vectors`);
      assert.deepEqual(
        { errorCode: x.errorCode, errorMessage: x.errorMessage },
        { errorCode: 0, errorMessage: s.response.errorMessage },
        `${label}: response`,
      );
      assert.deepEqual(await h.observe(want), want, `${label}: state`);
      return;
    }
    case 'alterPartition(leader)': {
      const accepted = s.response.error === 'NONE' || s.response.error === 'NEW_LEADER_ELECTED';
      if (!accepted) {
        // Kafka's controller refused the leader's proposal: over the wire, nothing happens.
        assert.deepEqual(await h.observe(want), want, `${label}: state`);
        return;
      }
      const before = prev?.state.partitions[r.partition];
      assert.ok(before && before !== 'absent', `${label}: no previous state`);
      const joining = (r.newIsr as number[]).filter((b) => !before.isr.includes(b));
      await h.release(joining, [splitKey(r.partition).topic]);
      await waitForState(h, want, label);
      return;
    }
    default:
      assert.fail(`${label}: unknown op ${r.op}`);
  }
}

const available = existsSync(VECTORS);
const scenarios = available ? loadScenarios() : new Map<string, StepV[]>();

test(
  'Kafka controller vectors: 31 scenarios',
  { skip: skipWithoutShared(VECTORS, "Kafka's controller vectors (or set KAFKA_CONTROLLER_VECTORS)") },
  async (t) => {
    assertShared(VECTORS, "Kafka's controller vectors");
    assert.equal(scenarios.size, 31);
    for (const [name, steps] of scenarios) {
      await t.test(name, async () => {
        const sim = await startSimulator({
          brokers: 4,
          seedBytes: 64 * 1024,
          placer: 'striped',
          // StripedReplicaPlacer's random start: the vectors' controller drew broker 2 of 4.
          placementRandom: { nextInt: (bound: number) => (bound === 4 ? 2 : 0) },
        });
        try {
          const h = new Harness(sim);
          await h.setup();
          let prev: StepV | undefined;
          for (const s of steps) {
            await runStep(h, s, prev);
            prev = s;
          }
        } finally {
          await sim.close();
        }
      });
    }
  },
);
