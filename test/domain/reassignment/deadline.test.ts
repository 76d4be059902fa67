import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  busiestBroker,
  bytesLeftPerBroker,
  checkFinishBy,
  DEADLINE_MARGIN,
  DEADLINE_MIN_LEAD_MS,
  DEFAULT_THROTTLE_BOUNDS,
  EFFICIENCY_WEIGHT,
  LOWER_STEP,
  RAISE_STEP,
  advanceEfficiency,
  scaleToRemaining,
  paceToDeadline,
  parseReassignmentRequest,
  secondsToAim,
  type BrokerBytes,
  type DeadlineInput,
} from '../../../src/domain/reassignment/index.js';

const MiB = 1024 * 1024;
const T0 = 1_700_000_000_000;

const input = (over: Partial<DeadlineInput> = {}): DeadlineInput => ({
  nowMs: T0,
  startedAtMs: T0,
  finishByMs: T0 + 100_000,
  brokers: [
    { broker: 0, bytesIn: 0, bytesOut: 500 * MiB },
    { broker: 1, bytesIn: 250 * MiB, bytesOut: 0 },
    { broker: 2, bytesIn: 250 * MiB, bytesOut: 0 },
  ],
  bounds: { min: MiB, max: 100 * MiB },
  currentThrottle: null,
  efficiency: 1,
  ...over,
});

describe('paceToDeadline', () => {
  it('picks the busiest broker bytes over the time to the aim (finishBy less the margin)', () => {
    const d = paceToDeadline(input());
    // Broker 0 sends 500 MiB; the aim is 95 s away.
    assert.equal(d.wanted, Math.ceil((500 * MiB) / (100 * (1 - DEADLINE_MARGIN))));
    assert.equal(d.throttle, d.wanted);
    assert.equal(d.rewrite, true);
    assert.equal(d.holds, true);
    assert.deepEqual(d.busiest, { broker: 0, bytesLeft: 500 * MiB });
    assert.ok(d.expectedEndMs <= T0 + 95_000 + 1 && d.expectedEndMs >= T0 + 94_000, String(d.expectedEndMs - T0));
    assert.equal(d.expectedEndAtMaxMs, T0 + 5_000);
  });

  it('asks for more when the busiest broker achieved only part of the throttle', () => {
    const full = paceToDeadline(input());
    const half = paceToDeadline(input({ efficiency: 0.5 }));
    assert.ok(Math.abs(half.wanted - 2 * full.wanted) <= 2, `${half.wanted} vs ${full.wanted}`);
  });

  it('does not hold when even max cannot make it: max, and the end at max', () => {
    const d = paceToDeadline(input({ finishByMs: T0 + 40_000, bounds: { min: MiB, max: 10 * MiB } }));
    assert.equal(d.holds, false);
    assert.equal(d.throttle, 10 * MiB);
    assert.equal(d.expectedEndAtMaxMs, T0 + 50_000);
    assert.equal(d.expectedEndMs, T0 + 50_000);
  });

  it('the bandwidth caps what max achieves', () => {
    const d = paceToDeadline(input({ bandwidth: 2 * MiB }));
    assert.equal(d.holds, false);
    assert.equal(d.expectedEndAtMaxMs, T0 + 250_000);
  });

  it('keeps the current rate within the hysteresis, lowers or raises past it', () => {
    const wanted = paceToDeadline(input()).wanted;
    const keep = paceToDeadline(input({ currentThrottle: Math.round(wanted * 1.03) }));
    assert.equal(keep.rewrite, false);
    assert.equal(keep.throttle, Math.round(wanted * 1.03));
    assert.equal(paceToDeadline(input({ currentThrottle: Math.round(wanted * 0.97) })).rewrite, false);
    const lower = paceToDeadline(input({ currentThrottle: Math.round(wanted / (1 - LOWER_STEP)) + 10 }));
    assert.equal(lower.rewrite, true);
    assert.equal(lower.throttle, wanted);
    const raise = paceToDeadline(input({ currentThrottle: Math.round(wanted / (1 + RAISE_STEP)) - 10 }));
    assert.equal(raise.rewrite, true);
    assert.equal(raise.throttle, wanted);
  });

  it('nothing left: keeps the rate in place, expected end now', () => {
    const d = paceToDeadline(input({ brokers: [{ broker: 3, bytesIn: 0, bytesOut: 0 }], currentThrottle: 5 * MiB }));
    assert.deepEqual([d.throttle, d.rewrite, d.holds, d.expectedEndMs, d.busiest], [5 * MiB, false, true, T0, null]);
  });

  it('near the end it aims halfway to finishBy: the tail ends before it, without a jump', () => {
    const d = paceToDeadline(input({ nowMs: T0 + 97_000, brokers: [{ broker: 0, bytesIn: 0, bytesOut: 3 * MiB }] }));
    assert.equal(secondsToAim(T0 + 97_000, T0, T0 + 100_000), 1.5);
    assert.equal(secondsToAim(T0 + 50_000, T0, T0 + 100_000), 45);
    assert.equal(d.throttle, 2 * MiB);
    assert.equal(d.holds, true);
    assert.ok(d.expectedEndMs <= T0 + 100_000);
  });

  it('in the tail (the last 10 % of the duration) the rate is raised, never lowered', () => {
    const late = { nowMs: T0 + 92_000, brokers: [{ broker: 0, bytesIn: 0, bytesOut: 3 * MiB }] };
    const wanted = paceToDeadline(input(late)).wanted;
    const keep = paceToDeadline(input({ ...late, currentThrottle: 2 * wanted }));
    assert.deepEqual([keep.rewrite, keep.throttle], [false, 2 * wanted]);
    const raise = paceToDeadline(input({ ...late, currentThrottle: Math.floor(wanted / 2) }));
    assert.deepEqual([raise.rewrite, raise.throttle], [true, wanted]);
    // Before the tail the same excess is lowered.
    assert.equal(paceToDeadline(input({ currentThrottle: 2 * paceToDeadline(input()).wanted })).rewrite, true);
  });
});

const arbBrokers: fc.Arbitrary<BrokerBytes[]> = fc.array(
  fc.record({
    broker: fc.integer({ min: 0, max: 99 }),
    bytesIn: fc.integer({ min: 0, max: 2 ** 40 }),
    bytesOut: fc.integer({ min: 0, max: 2 ** 40 }),
  }),
  { minLength: 1, maxLength: 8 },
);
const arbBounds = fc
  .tuple(fc.integer({ min: 1024, max: 2 ** 30 }), fc.integer({ min: 1024, max: 2 ** 30 }))
  .map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) }));
const arbInput = fc.record({
  elapsed: fc.integer({ min: 0, max: 10_000_000 }),
  left: fc.integer({ min: 1, max: 100_000_000 }),
  brokers: arbBrokers,
  bounds: arbBounds,
  efficiency: fc.double({ min: 0.2, max: 1, noNaN: true }),
  bandwidth: fc.option(fc.integer({ min: 1024, max: 2 ** 31 }), { nil: null }),
});
const build = (x: {
  elapsed: number;
  left: number;
  brokers: BrokerBytes[];
  bounds: { min: number; max: number };
  efficiency: number;
  bandwidth: number | null;
}): DeadlineInput => ({
  nowMs: T0 + x.elapsed,
  startedAtMs: T0,
  finishByMs: T0 + x.elapsed + x.left,
  brokers: x.brokers,
  bounds: x.bounds,
  currentThrottle: null,
  efficiency: x.efficiency,
  bandwidth: x.bandwidth,
});

describe('paceToDeadline (properties)', () => {
  it('more time never asks for a higher throttle', () => {
    fc.assert(
      fc.property(arbInput, fc.integer({ min: 0, max: 100_000_000 }), (x, more) => {
        const a = paceToDeadline(build(x));
        const b = paceToDeadline({ ...build(x), finishByMs: build(x).finishByMs + more });
        assert.ok(b.wanted <= a.wanted, `${b.wanted} > ${a.wanted}`);
      }),
    );
  });

  it('within the bounds, never above max; holds iff max ends by finishBy; holding, the chosen rate ends by finishBy', () => {
    fc.assert(
      fc.property(arbInput, (x) => {
        const i = build(x);
        const d = paceToDeadline(i);
        assert.ok(d.throttle >= i.bounds.min && d.throttle <= i.bounds.max);
        const busiest = busiestBroker(i.brokers);
        if (busiest === null) return;
        const atMax = i.nowMs + (busiest.bytesLeft / (Math.min(i.bounds.max, i.bandwidth ?? Infinity) * i.efficiency)) * 1000;
        assert.equal(d.holds, atMax <= i.finishByMs);
        if (d.holds) assert.ok(d.expectedEndMs <= i.finishByMs + 1e-6, `${d.expectedEndMs - i.finishByMs}`);
        else assert.equal(d.throttle, i.bounds.max);
      }),
    );
  });

  it('a throttle in place is rewritten only past the hysteresis or out of bounds', () => {
    fc.assert(
      fc.property(arbInput, fc.integer({ min: 1024, max: 2 ** 30 }), (x, current) => {
        const i = { ...build(x), currentThrottle: current };
        const d = paceToDeadline(i);
        if (!d.rewrite) assert.equal(d.throttle, current);
        else assert.equal(d.throttle, d.wanted);
      }),
    );
  });
});

describe('bytesLeftPerBroker', () => {
  it('queued whole, moving less the share done; destinations receive, the first original replica sends', () => {
    const out = bytesLeftPerBroker(
      [
        { original: [0, 1], target: [2, 3], state: 'moving', bytesTotal: 200 },
        { original: [1, 2], target: [1, 3], state: 'queued', bytesTotal: 50 },
        { original: [0], target: [4], state: 'completed', bytesTotal: 1000 },
        { original: [0], target: [4], state: 'moving', bytesTotal: 1000, supersededBy: 'x' },
      ],
      0.25,
    );
    assert.deepEqual(out, [
      { broker: 0, bytesIn: 0, bytesOut: 150 },
      { broker: 1, bytesIn: 0, bytesOut: 50 },
      { broker: 2, bytesIn: 75, bytesOut: 0 },
      { broker: 3, bytesIn: 125, bytesOut: 0 },
    ]);
  });
});

describe('advanceEfficiency', () => {
  const brokers = (left: number) => [
    { broker: 1, bytesIn: left, bytesOut: 0 },
    { broker: 2, bytesIn: left / 2, bytesOut: 0 },
  ];
  const open = { at: T0, broker: 1, bytesLeft: 100 * MiB, allowedBytes: 0, markAt: T0 };
  it('integrates the allowance until the window is full, then weighs in what the busiest broker drained', () => {
    // 4 s at 10 MiB/s: the window (10 s) is not full yet.
    const mid = advanceEfficiency({ efficiency: 1, sample: open }, T0 + 4_000, brokers(80 * MiB), 10 * MiB, 10_000);
    assert.deepEqual(mid, { efficiency: 1, sample: { ...open, allowedBytes: 40 * MiB, markAt: T0 + 4_000 } });
    // 6 s more at 5 MiB/s: 70 MiB allowed; it drained 42 (0.6), weighted with the previous 1.
    const full = advanceEfficiency(mid, T0 + 10_000, brokers(58 * MiB), 5 * MiB, 10_000);
    assert.ok(Math.abs(full.efficiency - (EFFICIENCY_WEIGHT * 0.6 + (1 - EFFICIENCY_WEIGHT))) < 1e-9, String(full.efficiency));
    assert.ok(full.efficiency < 1);
    assert.deepEqual(full.sample, { at: T0 + 10_000, broker: 1, bytesLeft: 58 * MiB, allowedBytes: 0, markAt: T0 + 10_000 });
  });
  it('the bandwidth caps the allowance; old or no measurement changes nothing; a drained broker keeps it', () => {
    const capped = advanceEfficiency({ efficiency: 1, sample: open }, T0 + 10_000, brokers(40 * MiB), 10 * MiB, 10_000, 6 * MiB);
    assert.equal(capped.efficiency, 1);
    assert.deepEqual(advanceEfficiency({ efficiency: 0.7, sample: open }, T0, brokers(40 * MiB), 10 * MiB, 1), {
      efficiency: 0.7,
      sample: open,
    });
    assert.equal(advanceEfficiency({ efficiency: 0.7, sample: open }, T0 + 20_000, brokers(0), 10 * MiB, 1).efficiency, 0.7);
    assert.deepEqual(advanceEfficiency({ efficiency: 0.7, sample: null }, T0 + 20_000, brokers(10), 10 * MiB, 1), {
      efficiency: 0.7,
      sample: { at: T0 + 20_000, broker: 1, bytesLeft: 10, allowedBytes: 0, markAt: T0 + 20_000 },
    });
  });
  it('never leaves [MIN_EFFICIENCY, 1]', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.integer({ min: 0, max: 200 * MiB }),
        fc.integer({ min: 1024, max: 100 * MiB }),
        (e, left, rate) => {
          const out = advanceEfficiency({ efficiency: e, sample: open }, T0 + 10_000, brokers(left), rate, 5_000);
          assert.ok(out.efficiency >= 0.2 && out.efficiency <= 1, String(out.efficiency));
        },
      ),
    );
  });
});

describe('scaleToRemaining', () => {
  it('scales bytes in to the measured remainder, bytes out alike', () => {
    assert.deepEqual(
      scaleToRemaining(
        [
          { broker: 0, bytesIn: 0, bytesOut: 300 },
          { broker: 1, bytesIn: 100, bytesOut: 0 },
          { broker: 2, bytesIn: 200, bytesOut: 0 },
        ],
        150,
      ),
      [
        { broker: 0, bytesIn: 0, bytesOut: 150 },
        { broker: 1, bytesIn: 50, bytesOut: 0 },
        { broker: 2, bytesIn: 100, bytesOut: 0 },
      ],
    );
    assert.deepEqual(scaleToRemaining([{ broker: 0, bytesIn: 0, bytesOut: 0 }], 150), [{ broker: 0, bytesIn: 0, bytesOut: 0 }]);
  });
});

describe('finishBy and throttleBounds in a POST body', () => {
  const partitions = [{ topic: 't', partition: 0, replicas: [1] }];
  const codes = (body: object) => {
    const r = parseReassignmentRequest({ partitions, ...body });
    return r.ok ? [] : r.errors.map((e) => `${e.path} ${e.code}`);
  };
  it('parses them', () => {
    const r = parseReassignmentRequest({ partitions, finishBy: '2030-01-31T18:00:00Z', throttleBounds: { max: 50 * MiB } });
    assert.ok(r.ok);
    assert.equal(r.request.finishBy, Date.parse('2030-01-31T18:00:00Z'));
    assert.deepEqual(r.request.throttleBounds, { min: DEFAULT_THROTTLE_BOUNDS.min, max: 50 * MiB });
    assert.equal(r.request.throttle, null);
  });
  it('refuses what cannot be meant', () => {
    assert.deepEqual(codes({ finishBy: '2030-01-31T18:00:00Z', throttle: 5 * MiB }), ['/throttle MUTUALLY_EXCLUSIVE']);
    assert.deepEqual(codes({ throttleBounds: { max: 5 * MiB } }), ['/throttleBounds MUTUALLY_EXCLUSIVE']);
    assert.deepEqual(codes({ finishBy: 'tomorrow' }), ['/finishBy INVALID_TYPE']);
    assert.deepEqual(codes({ finishBy: '2030-01-31T18:00:00' }), ['/finishBy INVALID_TYPE']); // no zone
    assert.deepEqual(codes({ finishBy: '2030-01-31T18:00:00Z', throttleBounds: { min: 10 * MiB, max: 5 * MiB } }), [
      '/throttleBounds OUT_OF_RANGE',
    ]);
    assert.deepEqual(codes({ finishBy: '2030-01-31T18:00:00Z', throttleBounds: { min: 10 } }), ['/throttleBounds/min OUT_OF_RANGE']);
  });
  it('a deadline in the past or too close', () => {
    assert.equal(checkFinishBy(T0 + DEADLINE_MIN_LEAD_MS, T0), null);
    assert.match(checkFinishBy(T0 - 1, T0)!.message, /in the past/);
    assert.match(checkFinishBy(T0 + 5_000, T0)!.message, /only 5\.0 s away/);
    assert.equal(checkFinishBy(T0 + 5_000, T0)!.code, 'DEADLINE_TOO_CLOSE');
  });
});
