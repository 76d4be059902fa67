// AlterPartitionReassignments in slices (ClusterModel.alterPartitionReassignmentsSliced, what the
// wire handler uses): the same answers and the same end state as the request done in one block,
// with every entry planned against the state before the request even when planning spans several
// slices; other work runs between slices; two requests run one after the other. The slices are
// driven here by a `pause` the test controls (sliceMs 0: a pause every 128 entries), so nothing
// depends on timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeModel } from './cluster/helpers.js';
import type { ClusterModel } from '../../src/sim/cluster/model.js';

type Entry = { topic: string; partition: number; replicas: number[] | null };

function cluster(): ClusterModel {
  const m = makeModel(6);
  for (let t = 0; t < 3; t++) {
    m.createTopic({
      name: `t${t}`,
      assignments: Array.from({ length: 400 }, (_, p) => ({ partition: p, brokerIds: [p % 6, (p + 1) % 6, (p + 2) % 6] })),
    });
    for (let p = 0; p < 400; p += 7) m.seedBytes(`t${t}`, p, 1024 * 1024);
  }
  // Nothing catches up by itself: copies stay in flight whatever the clock does.
  m.incrementalAlterConfigs({ type: 4, name: '' }, [{ name: 'follower.replication.throttled.rate', op: 0, value: '0' }]);
  for (let t = 0; t < 3; t++)
    m.incrementalAlterConfigs({ type: 2, name: `t${t}` }, [{ name: 'follower.replication.throttled.replicas', op: 0, value: '*' }]);
  return m;
}

/** A mixed request: moves, cancels of idle partitions (85), unknown ones (3), bad targets (39), repeats. */
function entries(seed: number): Entry[] {
  let x = seed;
  const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
  const out: Entry[] = [];
  for (let i = 0; i < 1500; i++) {
    const topic = rnd(20) === 0 ? 'nope' : `t${rnd(3)}`;
    const partition = rnd(410);
    const kind = rnd(10);
    const replicas =
      kind === 0 ? null : kind === 1 ? [] : kind === 2 ? [1, 1] : [rnd(6), (rnd(5) + 1 + 0) % 6].filter((v, k, a) => a.indexOf(v) === k);
    out.push({ topic, partition, replicas: kind >= 3 && replicas!.length === 0 ? [0] : replicas });
  }
  // The same partition twice, far apart (in different slices): it ends as the last entry says, and
  // a cancel planned against the state before the request answers 85.
  out.push({ topic: 't0', partition: 399, replicas: null });
  out.splice(3, 0, { topic: 't0', partition: 399, replicas: [5, 4] });
  return out;
}

function state(m: ClusterModel): unknown {
  return {
    topics: m.topicViews().map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p })) })),
    moving: m.listPartitionReassignments(null),
  };
}

const codes = (errors: readonly ({ code: number; wireMessage: string | null } | null)[]) =>
  errors.map((e) => (e ? [e.code, e.wireMessage] : null));

test('a request done in slices answers and ends exactly as the request done in one block', async () => {
  for (const seed of [1, 2, 3]) {
    const whole = cluster();
    const sliced = cluster();
    const es = entries(seed);
    const expected = whole.alterPartitionReassignments(es);
    let pauses = 0;
    const got = await sliced.alterPartitionReassignmentsSliced(es, { sliceMs: 0, pause: async () => void pauses++ });
    assert.ok(pauses > 10, `the request was cut into slices (${pauses} pauses)`);
    assert.deepEqual(codes(got), codes(expected), `seed ${seed}: per-entry answers`);
    assert.ok(
      codes(got).some((c) => c?.[0] === 85) && codes(got).some((c) => c?.[0] === 39) && codes(got).some((c) => c?.[0] === 3),
      'the request mixes errors',
    );
    assert.deepEqual(state(sliced), state(whole), `seed ${seed}: end state`);
  }
});

test('other work runs between slices and sees the request half applied; a second request waits for the first', async () => {
  const m = cluster();
  // 1,200 entries: more than run in one block. Planning pauses 10 times (before it starts, then
  // every 128 entries); the 13th pause comes after 384 entries were applied.
  const first = Array.from({ length: 1200 }, (_, i) => ({
    topic: `t${Math.floor(i / 400)}`,
    partition: i % 400,
    replicas: [((i % 400) + 3) % 6, ((i % 400) + 4) % 6],
  }));
  const second = first.map((e) => ({ ...e, replicas: null }));
  const seen: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let paused = 0;
  const pause = async () => {
    seen.push(m.movingPartitionCount()); // another connection reading between slices
    if (++paused === 13) await gate;
  };
  const a = m.alterPartitionReassignmentsSliced(first, { sliceMs: 0, pause });
  const b = m.alterPartitionReassignmentsSliced(second, { sliceMs: 0, pause });
  while (paused < 13) await new Promise((resolve) => setImmediate(resolve));
  const midway = m.movingPartitionCount();
  assert.equal(midway, 384, 'the first request is partly applied while paused');
  release();
  const [ra, rb] = await Promise.all([a, b]);
  assert.ok(
    ra.every((e) => e === null),
    'every move of the first request started',
  );
  // The second was planned after the first had been applied entirely: every cancel finds its move.
  assert.ok(
    rb.every((e) => e === null),
    'every cancel of the second request found a move in progress',
  );
  assert.equal(m.movingPartitionCount(), 0);
  assert.ok(
    seen.includes(0) && seen.includes(1200) && seen.some((n) => n > 0 && n < 1200),
    'reads between slices saw the moves come and go',
  );
});

test('a small request with nothing in flight runs in one block, at once', async () => {
  const m = cluster();
  let pauses = 0;
  const pending = m.alterPartitionReassignmentsSliced([{ topic: 't0', partition: 0, replicas: [4, 5] }], {
    sliceMs: 0,
    pause: async () => void pauses++,
  });
  assert.equal(m.movingPartitionCount(), 1, 'applied before the promise is awaited');
  assert.deepEqual(await pending, [null]);
  assert.equal(pauses, 0);
});
