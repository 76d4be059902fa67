// KIP-599 controller mutation quotas in the simulator: the buckets in src/sim/quotas.ts on
// their own (ManualClock, no sockets), then over real TCP with raw requests (exact
// versions, client ids, SASL users) and with @platformatic/kafka's Admin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, ClientQuotaMatchTypes } from '@platformatic/kafka';
import { ManualClock, startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { ClientQuotaStore, ControllerMutationQuotaManager, type AlterEntry } from '../../src/sim/quotas.js';
import { request } from './wire.js';
import { Session } from './session.js';

const CMR = 'controller_mutation_rate';
const clientDefault = [{ entityType: 'client-id', entityName: null }];
const setRate = (entity: AlterEntry['entity'], value: number, key = CMR): AlterEntry => ({ entity, ops: [{ key, value, remove: false }] });

function manager(opts: { windowNum?: number; windowSizeSeconds?: number } = {}) {
  const clock = new ManualClock();
  const store = new ClientQuotaStore();
  return { clock, store, quotas: new ControllerMutationQuotaManager(store, clock, opts) };
}

// ---------------------------------------------------------------------------------------------
// The manager on its own
// ---------------------------------------------------------------------------------------------

test('no controller_mutation_rate anywhere: unlimited, no bucket, no throttle', () => {
  const { store, quotas } = manager();
  store.alter([setRate(clientDefault, 1000, 'producer_byte_rate')], false);
  const q = quotas.forRequest(null, 'c', true);
  for (let i = 0; i < 10; i++) assert.equal(q.tryCharge(1000), true);
  assert.equal(q.throttleTimeMs(), 0);
  assert.deepEqual(quotas.bucketKeys(), []);
});

test('strict: a new bucket starts full (11 x 1 s x rate), goes negative once, then refuses at no cost', () => {
  const { clock, store, quotas } = manager();
  store.alter([setRate(clientDefault, 2)], false);
  const q1 = quotas.forRequest(null, 'c', true);
  assert.equal(q1.tryCharge(30), true);
  assert.equal(q1.throttleTimeMs(), 0, 'an accepted charge is no violation');
  const key = quotas.resolve(null, 'c')!.bucketKey;
  assert.equal(key, ':c', 'a /clients/<default> quota is bucketed per client id');
  assert.deepEqual(
    { ...quotas.inspect(key)!, nowMs: 0 },
    { rate: 2, burst: 22, tokens: -8, windowSeconds: 11, nowMs: 0, throttleTimeMs: 4000, msUntilFull: 15000 },
  );
  const q2 = quotas.forRequest(null, 'c', true);
  assert.equal(q2.tryCharge(1), false);
  assert.equal(q2.throttleTimeMs(), 4000);
  assert.equal(quotas.inspect(key)!.tokens, -8, 'a refusal costs nothing');
  clock.advance(1000);
  assert.equal(q2.throttleTimeMs(), 3000, 'reduced by the time that passed since the refusal');
  clock.advance(3000);
  const q3 = quotas.forRequest(null, 'c', true);
  assert.equal(q3.tryCharge(100), true, 'tokens back at exactly 0 is not negative');
  assert.equal(quotas.inspect(key)!.tokens, -100);
});

test('permissive: records and never refuses; the throttle is the last one that left the bucket negative', () => {
  const { store, quotas } = manager();
  store.alter([setRate(clientDefault, 2)], false);
  const q = quotas.forRequest(null, 'c', false);
  assert.equal(q.tryCharge(20), true);
  assert.equal(q.throttleTimeMs(), 0);
  assert.equal(q.tryCharge(10), true);
  assert.equal(q.throttleTimeMs(), 4000);
  assert.equal(q.tryCharge(10), true);
  assert.equal(q.throttleTimeMs(), 9000);
});

test('window options set the burst: num x size x rate', () => {
  const { store, quotas } = manager({ windowNum: 3, windowSizeSeconds: 2 });
  store.alter([setRate(clientDefault, 5)], false);
  quotas.forRequest(null, 'c', true).tryCharge(0);
  assert.equal(quotas.inspect(':c')!.burst, 30);
  assert.throws(() => manager({ windowNum: 0 }), /controller.quota.window.num/);
});

test('a changed rate applies to the next request and keeps the tokens; a removed one means unlimited', () => {
  const { clock, store, quotas } = manager();
  store.alter([setRate(clientDefault, 2)], false);
  assert.equal(quotas.forRequest(null, 'c', true).tryCharge(30), true); // 22 - 30 = -8
  store.alter([setRate(clientDefault, 4)], false);
  const q = quotas.forRequest(null, 'c', true);
  assert.equal(q.tryCharge(1), false);
  assert.equal(q.throttleTimeMs(), 2000, '-8 tokens at the new rate 4/s');
  assert.equal(quotas.inspect(':c')!.burst, 44);
  store.alter([{ entity: clientDefault, ops: [{ key: CMR, value: 0, remove: true }] }], false);
  assert.equal(quotas.forRequest(null, 'c', true).tryCharge(1000), true);
  clock.advance(1000);
  store.alter([setRate(clientDefault, 4)], false);
  assert.equal(quotas.inspect(':c')!.tokens, -4, 'the old bucket comes back (Kafka keeps the sensor)');
});

test('the user of an unauthenticated connection is ANONYMOUS', () => {
  const { store, quotas } = manager();
  store.alter([setRate([{ entityType: 'user', entityName: 'ANONYMOUS' }], 1)], false);
  assert.equal(quotas.resolve(null, 'c')!.bucketKey, 'ANONYMOUS:');
  assert.equal(quotas.resolve('alice', 'c'), undefined);
  const q = quotas.forRequest(null, 'any', true);
  assert.equal(q.tryCharge(12), true);
  assert.equal(quotas.forRequest(null, 'other-client', true).tryCharge(1), false, 'one bucket per user for a user-only quota');
});

// ---------------------------------------------------------------------------------------------
// Over TCP
// ---------------------------------------------------------------------------------------------

async function withSim(opts: SimulatorOptions, fn: (sim: Simulator, port: number, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock();
  const sim = await startSimulator({ brokers: 1, clock, ...opts });
  try {
    await fn(sim, sim.endpoints()[0].port, clock);
  } finally {
    await sim.close();
  }
}

const topic = (name: string, numPartitions: number) => ({ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] });
const createV7 = (topics: ReturnType<typeof topic>[], validateOnly = false) => ({ topics, timeoutMs: 1000, validateOnly });

async function alterWire(port: number, entries: AlterEntry[]): Promise<void> {
  const res = await request(port, 49, 1, { entries, validateOnly: false });
  for (const e of res.entries) assert.equal(e.errorCode, 0, e.errorMessage);
}

test('CreateTopics v7 under a 2/s client-id default: 30 partitions pass, the next 30 get 89 with 4000 ms, and pass 4 s later', () =>
  withSim({}, async (sim, port, clock) => {
    await alterWire(port, [setRate(clientDefault, 2)]);
    const first = await request(port, 19, 7, createV7([topic('q1', 30)]));
    assert.equal(first.topics[0].errorCode, 0);
    assert.equal(first.topics[0].numPartitions, 30);
    assert.equal(first.throttleTimeMs, 0);
    const second = await request(port, 19, 7, createV7([topic('q2', 30)]));
    assert.equal(second.topics[0].errorCode, 89);
    assert.equal(second.topics[0].errorMessage, 'The throttling quota has been exceeded.');
    assert.equal(second.throttleTimeMs, 4000);
    assert.equal(sim.model.getTopic('q2'), undefined);
    clock.advance(3999);
    assert.equal((await request(port, 19, 7, createV7([topic('q2', 30)]))).topics[0].errorCode, 89);
    clock.advance(1);
    const third = await request(port, 19, 7, createV7([topic('q2', 30)]));
    assert.equal(third.topics[0].errorCode, 0);
    assert.equal(sim.model.getTopic('q2')?.partitions.length, 30);
  }));

test('one request, two topics: A passes and takes the bucket negative, B gets 89', () =>
  withSim({}, async (sim, port) => {
    await alterWire(port, [setRate(clientDefault, 2)]);
    const res = await request(port, 19, 7, createV7([topic('a', 30), topic('b', 30)]));
    assert.deepEqual(
      res.topics.map((t: any) => [t.name, t.errorCode]),
      [
        ['a', 0],
        ['b', 89],
      ],
    );
    assert.equal(res.throttleTimeMs, 4000);
    assert.ok(sim.model.getTopic('a'));
    assert.equal(sim.model.getTopic('b'), undefined);
  }));

test('CreateTopics v5 is permissive: never refused, throttle reported', () =>
  withSim({}, async (sim, port) => {
    await alterWire(port, [setRate(clientDefault, 2)]);
    const v5 = (name: string) => ({ topics: [topic(name, 30)], timeoutMs: 1000, validateOnly: false });
    const first = await request(port, 19, 5, v5('p1'));
    assert.equal(first.topics[0].errorCode, 0);
    assert.equal(first.throttleTimeMs, 4000, '22 - 30 = -8 tokens at 2/s');
    const second = await request(port, 19, 5, v5('p2'));
    assert.equal(second.topics[0].errorCode, 0);
    assert.equal(second.throttleTimeMs, 19000);
    assert.ok(sim.model.getTopic('p2'));
  }));

test('validateOnly CreateTopics is charged (KRaft) and creates nothing', () =>
  withSim({}, async (sim, port) => {
    await alterWire(port, [setRate(clientDefault, 2)]);
    const dry = await request(port, 19, 7, createV7([topic('v', 30)], true));
    assert.equal(dry.topics[0].errorCode, 0);
    assert.equal(sim.model.getTopic('v'), undefined);
    assert.equal((await request(port, 19, 7, createV7([topic('v', 1)]))).topics[0].errorCode, 89);
  }));

test("DeleteTopics v6 costs the topic's partition count", () =>
  withSim({}, async (sim, port) => {
    sim.model.createTopic(topic('big', 20), { validateOnly: false });
    sim.model.createTopic(topic('small', 1), { validateOnly: false });
    await alterWire(port, [setRate(clientDefault, 1)]);
    const res = await request(port, 20, 6, { topics: [{ name: 'big' }, { name: 'small' }], timeoutMs: 1000 });
    assert.deepEqual(
      res.responses.map((r: any) => [r.name, r.errorCode]),
      [
        ['big', 0],
        ['small', 89],
      ],
    );
    assert.equal(res.throttleTimeMs, 9000, '11 - 20 = -9 tokens at 1/s');
    assert.equal(sim.model.getTopic('big'), undefined);
    assert.ok(sim.model.getTopic('small'));
  }));

test('CreatePartitions v3 costs the partitions added', () =>
  withSim({}, async (sim, port) => {
    sim.model.createTopic(topic('grow', 1), { validateOnly: false });
    sim.model.createTopic(topic('grow2', 1), { validateOnly: false });
    await alterWire(port, [setRate(clientDefault, 1)]);
    const body = (name: string, count: number) => ({ topics: [{ name, count, assignments: null }], timeoutMs: 1000, validateOnly: false });
    const first = await request(port, 37, 3, body('grow', 13));
    assert.equal(first.results[0].errorCode, 0, '+12 with 11 tokens: accepted, -1 left');
    const second = await request(port, 37, 3, body('grow2', 2));
    assert.equal(second.results[0].errorCode, 89);
    assert.equal(second.throttleTimeMs, 1000);
    assert.equal(sim.model.getTopic('grow2')?.partitions.length, 1);
  }));

test('each client id has its own bucket under a client-id default', () =>
  withSim({}, async (sim, port) => {
    await alterWire(port, [setRate(clientDefault, 2)]);
    const a = await Session.open(port, 'client-a');
    const b = await Session.open(port, 'client-b');
    try {
      assert.equal((await a.send(19, 7, createV7([topic('a1', 30)]))).topics[0].errorCode, 0);
      assert.equal((await a.send(19, 7, createV7([topic('a2', 1)]))).topics[0].errorCode, 89);
      assert.equal((await b.send(19, 7, createV7([topic('b1', 22)]))).topics[0].errorCode, 0);
      assert.equal((await b.send(19, 7, createV7([topic('b2', 1)]))).topics[0].errorCode, 0, 'b still at 0 tokens');
    } finally {
      a.close();
      b.close();
    }
    assert.deepEqual(sim.mutationQuotas.bucketKeys().sort(), [':client-a', ':client-b']);
  }));

test('SASL users: user+client-id beats the client-id default; other users and clients are not held back', () =>
  withSim({ saslPlainUsers: { alice: 'pw', bob: 'pw' } }, async (sim, port) => {
    sim.clientQuotas.alter(
      [
        setRate(clientDefault, 100),
        setRate(
          [
            { entityType: 'user', entityName: 'alice' },
            { entityType: 'client-id', entityName: 'tool' },
          ],
          1,
        ),
      ],
      false,
    );
    const aliceTool = await Session.open(port, 'tool', { user: 'alice', password: 'pw' });
    const aliceOther = await Session.open(port, 'other', { user: 'alice', password: 'pw' });
    const bobTool = await Session.open(port, 'tool', { user: 'bob', password: 'pw' });
    try {
      assert.equal((await aliceTool.send(19, 7, createV7([topic('t1', 12)]))).topics[0].errorCode, 0);
      const refused = await aliceTool.send(19, 7, createV7([topic('t2', 1)]));
      assert.equal(refused.topics[0].errorCode, 89);
      assert.equal(refused.throttleTimeMs, 1000);
      assert.equal((await aliceOther.send(19, 7, createV7([topic('t3', 50)]))).topics[0].errorCode, 0);
      assert.equal((await bobTool.send(19, 7, createV7([topic('t4', 50)]))).topics[0].errorCode, 0);
    } finally {
      aliceTool.close();
      aliceOther.close();
      bobTool.close();
    }
    assert.deepEqual(sim.mutationQuotas.bucketKeys().sort(), [':other', ':tool', 'alice:tool']);
  }));

test('a default-user quota holds every SASL user, each in its own bucket', () =>
  withSim({ saslPlainUsers: { alice: 'pw', bob: 'pw' } }, async (sim, port) => {
    sim.clientQuotas.alter([setRate([{ entityType: 'user', entityName: null }], 1)], false);
    const alice = await Session.open(port, 'x', { user: 'alice', password: 'pw' });
    const alice2 = await Session.open(port, 'y', { user: 'alice', password: 'pw' });
    const bob = await Session.open(port, 'x', { user: 'bob', password: 'pw' });
    try {
      assert.equal((await alice.send(19, 7, createV7([topic('u1', 12)]))).topics[0].errorCode, 0);
      assert.equal(
        (await alice2.send(19, 7, createV7([topic('u2', 1)]))).topics[0].errorCode,
        89,
        'same user, other client id: same bucket',
      );
      assert.equal((await bob.send(19, 7, createV7([topic('u3', 11)]))).topics[0].errorCode, 0);
    } finally {
      alice.close();
      alice2.close();
      bob.close();
    }
  }));

test('@platformatic/kafka Admin: set the quota, get 89 with throttle 4000, succeed after 4 s', () =>
  withSim({}, async (sim, _port, clock) => {
    const admin = new Admin({ clientId: 'plt-admin', bootstrapBrokers: sim.bootstrapServers, retries: 0 });
    try {
      await admin.alterClientQuotas({
        entries: [{ entities: [{ entityType: 'client-id', entityName: null }], ops: [{ key: CMR, value: 2, remove: false }] }],
      });
      const described = await admin.describeClientQuotas({
        components: [{ entityType: 'client-id', matchType: ClientQuotaMatchTypes.DEFAULT }],
      });
      assert.deepEqual(described, [{ entity: [{ entityType: 'client-id', entityName: null }], values: [{ key: CMR, value: 2 }] }]);

      await admin.createTopics({ topics: ['plt1'], partitions: 30, replicas: 1 });
      const err: any = await admin.createTopics({ topics: ['plt2'], partitions: 30, replicas: 1 }).then(
        () => assert.fail('expected THROTTLING_QUOTA_EXCEEDED'),
        (e) => e,
      );
      assert.ok(err.findBy('apiCode', 89), String(err));
      // 2.x wraps the ResponseError in a MultipleErrors ('Creating topics failed.').
      const responseError = err.findBy('code', 'PLT_KFK_RESPONSE');
      assert.ok(responseError, String(err));
      assert.equal(responseError.response.throttleTimeMs, 4000, 'the ResponseError carries the response');
      assert.equal(responseError.response.topics[0].errorCode, 89);
      clock.advance(4000);
      const created = await admin.createTopics({ topics: ['plt2'], partitions: 30, replicas: 1 });
      assert.equal(created[0].partitions, 30);
    } finally {
      await admin.close();
    }
  }));

test('@platformatic/kafka Admin over SASL PLAIN is held by its user+client-id quota', () =>
  withSim({ saslPlainUsers: { alice: 'pw' } }, async (sim) => {
    const admin = new Admin({
      clientId: 'ops',
      bootstrapBrokers: sim.bootstrapServers,
      retries: 0,
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'pw' },
    });
    try {
      await admin.alterClientQuotas({
        entries: [
          { entities: [{ entityType: 'client-id', entityName: null }], ops: [{ key: CMR, value: 100, remove: false }] },
          {
            entities: [
              { entityType: 'user', entityName: 'alice' },
              { entityType: 'client-id', entityName: 'ops' },
            ],
            ops: [{ key: CMR, value: 1, remove: false }],
          },
        ],
      });
      await admin.createTopics({ topics: ['s1'], partitions: 11, replicas: 1 });
      await admin.createTopics({ topics: ['s2'], partitions: 1, replicas: 1 });
      await assert.rejects(admin.createTopics({ topics: ['s3'], partitions: 1, replicas: 1 }), (e: any) => !!e.findBy?.('apiCode', 89));
      assert.deepEqual(sim.mutationQuotas.bucketKeys(), ['alice:ops']);
    } finally {
      await admin.close();
    }
  }));
