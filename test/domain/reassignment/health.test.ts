import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  assessHealth,
  decideHold,
  DEFAULT_SAFETY,
  drainedBrokers,
  healthFor,
  MAX_EXAMPLES,
  minIsrCandidates,
  parseSafety,
  replanHint,
  targetsOnGoneBrokers,
  TROUBLE_KINDS,
  type ClusterHealth,
  type HealthTopic,
  type HoldState,
  type SafetyPolicy,
} from '../../../src/domain/reassignment/health.js';
import type { FieldError } from '../../../src/domain/reassignment/request.js';

const NOT_MOVING = () => false;
const live = (...ids: number[]) => new Set(ids);

describe('assessHealth', () => {
  it('a healthy cluster has no trouble', () => {
    const topics: HealthTopic[] = [{ name: 't', partitions: [{ partition: 0, leader: 0, replicas: [0, 1], isr: [0, 1] }] }];
    const h = assessHealth({ topics, liveBrokers: live(0, 1), minIsr: new Map([['t', 2]]), moving: NOT_MOVING });
    assert.deepEqual(h.troubles, []);
    assert.deepEqual(h.goneBrokers, []);
    assert.equal(h.partitions, 1);
  });

  it('counts each kind, with bounded examples', () => {
    const partitions = Array.from({ length: 20 }, (_, p) => ({
      partition: p,
      leader: p < 8 ? -1 : 0,
      replicas: [0, 1, 2],
      isr: p < 8 ? [] : p < 14 ? [0] : [0, 1, 2],
    }));
    const h = assessHealth({
      topics: [{ name: 'a', partitions }],
      liveBrokers: live(0, 1),
      minIsr: new Map([['a', 2]]),
      moving: NOT_MOVING,
    });
    const by = new Map(h.troubles.map((t) => [t.kind, t]));
    assert.equal(by.get('offline')!.count, 8);
    assert.equal(by.get('offline')!.examples.length, MAX_EXAMPLES);
    assert.equal(by.get('offline')!.examples[0], 'a-0');
    // Partitions 8..13 have ISR [0] of 3; 14..19 have the full ISR [0,1,2] although broker 2 is gone (Metadata as given).
    assert.equal(by.get('underReplicated')!.count, 6);
    assert.equal(by.get('underMinIsr')!.count, 6);
    assert.deepEqual(by.get('brokerGone'), { kind: 'brokerGone', count: 1, examples: ['2'] });
    assert.deepEqual(h.goneBrokers, [2]);
    assert.deepEqual(
      h.troubles.map((t) => t.kind),
      [...TROUBLE_KINDS],
      'in TROUBLE_KINDS order',
    );
  });

  it('an under-replicated partition a move touches is the move, not trouble; under min ISR counts anyway', () => {
    const topics: HealthTopic[] = [
      {
        name: 'm',
        partitions: [
          { partition: 0, leader: 0, replicas: [0, 1, 2], isr: [0] },
          { partition: 1, leader: 1, replicas: [1, 2], isr: [1] },
        ],
      },
    ];
    const h = assessHealth({ topics, liveBrokers: live(0, 1, 2), minIsr: new Map([['m', 2]]), moving: (t, p) => t === 'm' && p === 0 });
    assert.deepEqual(
      h.troubles.map((t) => [t.kind, t.count, t.examples]),
      [
        ['underReplicated', 1, ['m-1']],
        ['underMinIsr', 2, ['m-0', 'm-1']],
      ],
    );
  });

  it('a topic without a known min ISR is never under it; expected brokers not live are gone', () => {
    const topics: HealthTopic[] = [{ name: 'x', partitions: [{ partition: 0, leader: 0, replicas: [0], isr: [0] }] }];
    const h = assessHealth({ topics, liveBrokers: live(0), expectedBrokers: [0, 7, 5], minIsr: new Map(), moving: NOT_MOVING });
    assert.deepEqual(h.goneBrokers, [5, 7]);
    assert.deepEqual(h.troubles, [{ kind: 'brokerGone', count: 2, examples: ['5', '7'] }]);
  });

  it('matches a naive count on random clusters (fast-check)', () => {
    const arbPartition = fc.record({
      replicas: fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 1, maxLength: 4 }),
      isrCut: fc.nat(4),
      offline: fc.boolean(),
      moving: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(arbPartition, { maxLength: 12 }), { maxLength: 5 }),
        fc.subarray([0, 1, 2, 3, 4]),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 5, maxLength: 5 }),
        (raw, liveIds, minIsrs) => {
          const topics: HealthTopic[] = raw.map((ps, t) => ({
            name: `t${t}`,
            partitions: ps.map((p, i) => ({
              partition: i,
              leader: p.offline ? -1 : p.replicas[0],
              replicas: p.replicas,
              isr: p.offline ? [] : p.replicas.slice(0, Math.max(1, p.replicas.length - p.isrCut)),
            })),
          }));
          const movingSet = new Set(raw.flatMap((ps, t) => ps.flatMap((p, i) => (p.moving ? [`t${t}-${i}`] : []))));
          const minIsr = new Map(topics.map((t, i) => [t.name, minIsrs[i]]));
          const h = assessHealth({ topics, liveBrokers: new Set(liveIds), minIsr, moving: (t, p) => movingSet.has(`${t}-${p}`) });
          const all = topics.flatMap((t) => t.partitions.map((p) => ({ t: t.name, p })));
          const expect = {
            offline: all.filter((x) => x.p.leader < 0).length,
            underReplicated: all.filter(
              (x) => x.p.leader >= 0 && x.p.isr.length < x.p.replicas.length && !movingSet.has(`${x.t}-${x.p.partition}`),
            ).length,
            underMinIsr: all.filter((x) => x.p.leader >= 0 && x.p.isr.length < minIsr.get(x.t)!).length,
            brokerGone: new Set(all.flatMap((x) => x.p.replicas.filter((r) => !liveIds.includes(r)))).size,
          };
          for (const kind of TROUBLE_KINDS) {
            const got = h.troubles.find((t) => t.kind === kind);
            assert.equal(got?.count ?? 0, expect[kind], kind);
            if (got) assert.ok(got.examples.length === Math.min(MAX_EXAMPLES, got.count));
          }
          assert.equal(h.partitions, all.length);
        },
      ),
    );
  });

  it('walks 100,000 partitions quickly', () => {
    const partitions = Array.from({ length: 1000 }, (_, p) => ({
      partition: p,
      leader: p % 50,
      replicas: [p % 50, (p + 1) % 50, (p + 2) % 50],
      isr: [p % 50, (p + 1) % 50, (p + 2) % 50],
    }));
    const topics: HealthTopic[] = Array.from({ length: 100 }, (_, t) => ({ name: `topic-${t}`, partitions }));
    const brokers = new Set(Array.from({ length: 50 }, (_, i) => i));
    const started = performance.now();
    const h = assessHealth({ topics, liveBrokers: brokers, minIsr: new Map(), moving: NOT_MOVING });
    const ms = performance.now() - started;
    assert.equal(h.partitions, 100_000);
    assert.deepEqual(h.troubles, []);
    assert.ok(ms < 500, `${ms} ms`);
  });
});

describe('minIsrCandidates', () => {
  it('only topics with a shrunk ISR on a led partition', () => {
    const topics: HealthTopic[] = [
      { name: 'ok', partitions: [{ partition: 0, leader: 0, replicas: [0, 1], isr: [0, 1] }] },
      {
        name: 'shrunk',
        partitions: [
          { partition: 0, leader: 0, replicas: [0, 1], isr: [0, 1] },
          { partition: 1, leader: 0, replicas: [0, 1], isr: [0] },
        ],
      },
      { name: 'offline', partitions: [{ partition: 0, leader: -1, replicas: [0, 1], isr: [] }] },
    ];
    assert.deepEqual(minIsrCandidates(topics), ['shrunk']);
  });
});

const trouble = (...kinds: (typeof TROUBLE_KINDS)[number][]): ClusterHealth => ({
  troubles: kinds.map((kind) => ({ kind, count: 1, examples: kind === 'brokerGone' ? ['3'] : ['t-0'] })),
  goneBrokers: kinds.includes('brokerGone') ? [3] : [],
  partitions: 10,
});
const HEALTHY = trouble();

describe('decideHold', () => {
  it('holds on trouble its policy names, from now', () => {
    const d = decideHold(DEFAULT_SAFETY, trouble('underReplicated', 'brokerGone'), undefined, 1000);
    assert.equal(d.kind, 'held');
    if (d.kind !== 'held') return;
    assert.equal(d.hold.since, 1000);
    assert.deepEqual(
      d.hold.reasons.map((r) => r.kind),
      ['underReplicated', 'brokerGone'],
    );
  });

  it('ignores kinds the policy leaves out; off never holds', () => {
    const policy: SafetyPolicy = { holdOn: ['offline'], resumeAfterPasses: 2 };
    assert.deepEqual(decideHold(policy, trouble('underReplicated'), undefined, 0), { kind: 'none' });
    assert.deepEqual(decideHold('off', trouble('offline'), undefined, 0), { kind: 'none' });
    assert.deepEqual(decideHold({ holdOn: [], resumeAfterPasses: 1 }, trouble('offline'), undefined, 0), { kind: 'none' });
  });

  it('resumes after resumeAfterPasses healthy passes in a row (hysteresis); trouble again resets the count', () => {
    const policy: SafetyPolicy = { holdOn: DEFAULT_SAFETY.holdOn, resumeAfterPasses: 3 };
    let hold: HoldState | undefined;
    const step = (h: ClusterHealth, now: number) => {
      const d = decideHold(policy, h, hold, now);
      if (d.kind === 'held' || d.kind === 'updated') hold = d.hold;
      if (d.kind === 'resumed') hold = undefined;
      return d.kind;
    };
    assert.equal(step(trouble('offline'), 0), 'held');
    assert.equal(step(trouble('offline'), 1), 'unchanged', 'the same trouble: nothing to write');
    assert.equal(step(HEALTHY, 2), 'updated');
    assert.equal(hold!.healthyPasses, 1);
    assert.equal(step(HEALTHY, 3), 'updated');
    assert.equal(step(trouble('offline'), 4), 'updated', 'flapping back: count reset');
    assert.equal(hold!.healthyPasses, 0);
    assert.equal(hold!.since, 0, 'the hold keeps its start');
    assert.equal(step(HEALTHY, 5), 'updated');
    assert.equal(step(HEALTHY, 6), 'updated');
    assert.equal(step(HEALTHY, 7), 'resumed');
    assert.equal(hold, undefined);
  });

  it('another kind of trouble while held is a rewrite', () => {
    const d1 = decideHold(DEFAULT_SAFETY, trouble('offline'), undefined, 0);
    assert.equal(d1.kind, 'held');
    if (d1.kind !== 'held') return;
    assert.equal(decideHold(DEFAULT_SAFETY, trouble('offline', 'brokerGone'), d1.hold, 1).kind, 'updated');
  });

  it('a held record whose policy is off resumes', () => {
    const hold: HoldState = { since: 10, reasons: [], healthyPasses: 0 };
    assert.deepEqual(decideHold('off', trouble('offline'), hold, 30), { kind: 'resumed', heldForMs: 20 });
  });
});

describe('targetsOnGoneBrokers and replanHint', () => {
  it('open moves to gone brokers, per broker, bounded examples', () => {
    const parts = [
      { topic: 'a', partition: 0, target: [1, 3], state: 'queued' },
      { topic: 'a', partition: 1, target: [3, 4], state: 'moving' },
      { topic: 'a', partition: 2, target: [3, 4], state: 'completed' },
      { topic: 'a', partition: 3, target: [4, 3], state: 'queued', supersededBy: 'r-x' },
      ...Array.from({ length: 10 }, (_, i) => ({ topic: 'b', partition: i, target: [4], state: 'queued' })),
    ];
    const got = targetsOnGoneBrokers(parts, [4, 3]);
    assert.deepEqual(got, [
      { broker: 3, partitions: 2, examples: ['a-0', 'a-1'] },
      { broker: 4, partitions: 11, examples: ['a-1', 'b-0', 'b-1', 'b-2', 'b-3'] },
    ]);
    assert.deepEqual(targetsOnGoneBrokers(parts, []), []);
    const hint = replanHint('r-1', [3, 4]);
    assert.match(hint, /DELETE \/reassignments\/r-1/);
    assert.match(hint, /POST \/plans/);
    assert.match(hint, /"decommission","brokers":\[3, 4\]/);
  });
});

describe('parseSafety', () => {
  const parse = (v: unknown) => {
    const errors: FieldError[] = [];
    return { value: parseSafety(v, '/safety', errors), errors };
  };
  it('absent, null, off, a policy with defaults filled in', () => {
    assert.deepEqual(parse(undefined), { value: null, errors: [] });
    assert.deepEqual(parse(null), { value: null, errors: [] });
    assert.deepEqual(parse('off'), { value: 'off', errors: [] });
    assert.deepEqual(parse({}), { value: { holdOn: [...TROUBLE_KINDS], resumeAfterPasses: 3 }, errors: [] });
    assert.deepEqual(parse({ holdOn: ['brokerGone', 'offline', 'offline'], resumeAfterPasses: 5 }), {
      value: { holdOn: ['offline', 'brokerGone'], resumeAfterPasses: 5 },
      errors: [],
    });
  });
  it('refuses anything else with a path', () => {
    assert.deepEqual(
      parse('on').errors.map((e) => e.path),
      ['/safety'],
    );
    assert.deepEqual(
      parse({ holdOn: ['nope'] }).errors.map((e) => e.path),
      ['/safety/holdOn/0'],
    );
    assert.deepEqual(
      parse({ holdOn: 'offline' }).errors.map((e) => e.path),
      ['/safety/holdOn'],
    );
    assert.deepEqual(
      parse({ resumeAfterPasses: 0 }).errors.map((e) => e.code),
      ['OUT_OF_RANGE'],
    );
    assert.deepEqual(
      parse({ resumeAfterPasses: 1.5 }).errors.map((e) => e.code),
      ['OUT_OF_RANGE'],
    );
    assert.deepEqual(
      parse({ wait: 1 }).errors.map((e) => e.path),
      ['/safety/wait'],
    );
    assert.equal(parse({ wait: 1 }).value, null);
  });
});

describe('healthFor and drainedBrokers: a gone broker a reassignment drains is its move, not trouble', () => {
  it('drained = brokers its open moves take replicas from and give none to', () => {
    const parts = [
      { original: [5, 0], target: [1, 0], state: 'queued' },
      { original: [5, 2], target: [2, 3], state: 'moving' },
      { original: [3, 6], target: [6, 1], state: 'queued' }, // 3 is drained here but a target above
      { original: [7, 0], target: [0, 1], state: 'completed' }, // done: not open
      { original: [8, 0], target: [0, 1], state: 'queued', supersededBy: 'r-2' },
    ];
    assert.deepEqual([...drainedBrokers(parts)].sort(), [5]);
  });
  it('only brokerGone changes, and only for drained brokers', () => {
    const h: ClusterHealth = {
      troubles: [
        { kind: 'underReplicated', count: 2, examples: ['t-0', 't-1'] },
        { kind: 'brokerGone', count: 2, examples: ['5', '9'] },
      ],
      goneBrokers: [5, 9],
      partitions: 10,
    };
    assert.deepEqual(healthFor(h, new Set([5])).troubles, [
      { kind: 'underReplicated', count: 2, examples: ['t-0', 't-1'] },
      { kind: 'brokerGone', count: 1, examples: ['9'] },
    ]);
    assert.deepEqual(healthFor(h, new Set([5, 9])).troubles, [{ kind: 'underReplicated', count: 2, examples: ['t-0', 't-1'] }]);
    assert.equal(healthFor(h, new Set([1])), h, 'nothing drained is gone: the same object');
  });
});
