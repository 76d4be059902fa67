// origin.ts: the body's `origin` (bounded, as given) and the origin of a POST /plans answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { originOfPlanAnswer, ORIGIN_DESCRIPTION_MAX, parseOrigin, withPlanOrigin } from '../../../src/domain/reassignment/origin.js';
import { parseReassignmentRequest, type FieldError } from '../../../src/domain/reassignment/request.js';

const broker = (id: number, replicas: number, live = true) => ({ broker: id, rack: null, live, replicas, leaders: 0, bytes: 0 });

describe('parseOrigin', () => {
  it('keeps goal and description as given; absent or null = none', () => {
    const errors: FieldError[] = [];
    assert.deepEqual(parseOrigin({ goal: 'nightly-balance', description: 'from CI run 42' }, '/origin', errors), {
      goal: 'nightly-balance',
      description: 'from CI run 42',
    });
    assert.deepEqual(parseOrigin({ goal: 'leaders' }, '/origin', errors), { goal: 'leaders' });
    assert.equal(parseOrigin(undefined, '/origin', errors), null);
    assert.equal(parseOrigin(null, '/origin', errors), null);
    assert.deepEqual(errors, []);
  });

  it('refuses what is not a bounded label, each with its path', () => {
    const cases: [unknown, string][] = [
      ['decommission', '/origin'],
      [{}, '/origin/goal'],
      [{ goal: '' }, '/origin/goal'],
      [{ goal: 'x'.repeat(65) }, '/origin/goal'],
      [{ goal: 'two words' }, '/origin/goal'],
      [{ goal: 'a', description: 'd'.repeat(ORIGIN_DESCRIPTION_MAX + 1) }, '/origin/description'],
      [{ goal: 'a', description: 'line\nbreak' }, '/origin/description'],
      [{ goal: 'a', id: 7 }, '/origin/id'],
    ];
    for (const [value, path] of cases) {
      const errors: FieldError[] = [];
      assert.equal(parseOrigin(value, '/origin', errors), null, JSON.stringify(value));
      assert.deepEqual(
        errors.map((e) => e.path),
        [path],
        JSON.stringify(value),
      );
    }
  });

  it('parseReassignmentRequest carries it, and reports a bad one with the other errors', () => {
    const ok = parseReassignmentRequest({ partitions: [{ topic: 't', partition: 0, replicas: [1] }], origin: { goal: 'rack-repair' } });
    assert.ok(ok.ok);
    assert.deepEqual(ok.request.origin, { goal: 'rack-repair' });
    const plain = parseReassignmentRequest({ partitions: [{ topic: 't', partition: 0, replicas: [1] }] });
    assert.ok(plain.ok);
    assert.equal(plain.request.origin, undefined);
    const bad = parseReassignmentRequest({ partitions: [{ topic: 't', partition: 0, replicas: [1] }], origin: { goal: '!' }, throttle: 1 });
    assert.ok(!bad.ok);
    assert.deepEqual(bad.errors.map((e) => e.path).sort(), ['/origin/goal', '/throttle']);
  });
});

describe('originOfPlanAnswer', () => {
  it('decommission: the goal and the brokers it empties (not destinations, nothing left after)', () => {
    const answer = {
      goal: 'decommission',
      partitions: [{}, {}, {}],
      movedReplicas: 4,
      before: [broker(0, 3), broker(1, 2), broker(3, 2), broker(4, 1), broker(5, 0, false)],
      after: [broker(0, 4), broker(1, 4), broker(3, 0), broker(4, 0), broker(5, 0, false)],
      options: { brokers: [0, 1] },
    };
    assert.deepEqual(originOfPlanAnswer(answer), {
      goal: 'decommission',
      description: 'brokers 3, 4 emptied; 3 partitions changed; 4 replicas moved',
    });
  });

  it('other goals: what changes; a goal that is not a label or no answer at all: none', () => {
    assert.deepEqual(originOfPlanAnswer({ goal: 'leaders', partitions: [{}], movedReplicas: 0 }), {
      goal: 'leaders',
      description: '1 partition changed; 0 replicas moved',
    });
    assert.deepEqual(originOfPlanAnswer({ goal: 'rebalance' }), { goal: 'rebalance' });
    assert.equal(originOfPlanAnswer({ goal: 'x'.repeat(65), partitions: [] }), null);
    assert.equal(originOfPlanAnswer({ reassignment: { version: 1, partitions: [] } }), null);
    assert.equal(originOfPlanAnswer('decommission'), null);
  });

  it('the description stays bounded however many brokers are emptied', () => {
    const ids = Array.from({ length: 100 }, (_, i) => i + 10);
    const answer = {
      goal: 'decommission',
      partitions: [],
      movedReplicas: 0,
      before: ids.map((b) => broker(b, 5)),
      after: ids.map((b) => broker(b, 0)),
      options: { brokers: [0] },
    };
    const origin = originOfPlanAnswer(answer)!;
    assert.ok(origin.description!.length <= ORIGIN_DESCRIPTION_MAX);
    assert.match(origin.description!, /^brokers 10, 11, 12, 13, 14, 15, 16, 17 … \(100\) emptied/);
  });
});

describe('withPlanOrigin', () => {
  it("adds the plan answer's origin unless the body names one; other bodies unchanged", () => {
    const plan = { goal: 'rebalance', reassignment: { version: 1, partitions: [] } };
    assert.deepEqual((withPlanOrigin({ plan, throttle: 2048 }) as { origin: unknown }).origin, { goal: 'rebalance' });
    assert.deepEqual((withPlanOrigin({ plan, origin: { goal: 'mine' } }) as { origin: unknown }).origin, { goal: 'mine' });
    const plain = { partitions: [] };
    assert.equal(withPlanOrigin(plain), plain);
    const list = [1];
    assert.equal(withPlanOrigin(list), list);
    const badGoal = { plan: { goal: 'no spaces allowed', reassignment: {} } };
    assert.equal(withPlanOrigin(badGoal), badGoal, 'a plan goal that is not a label is left out, not refused');
  });
});
