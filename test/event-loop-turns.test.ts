import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SHORT_YIELDS, waitingTurns, yieldTurn } from '../src/event-loop-turns.js';

it('resumes one waiting task per turn of the event loop, in turn (first in, first out among long tasks)', async () => {
  // A counter of loop turns: an immediate that queues itself runs once per check phase.
  let turn = 0;
  let counting = true;
  const tick = () => {
    turn++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const resumed: [string, number][] = [];
  const task = async (name: string, slices: number) => {
    for (let i = 0; i < slices; i++) {
      await yieldTurn(); // no runner: counted as long
      resumed.push([name, turn]);
    }
  };
  await Promise.all([task('a', 5), task('b', 5), task('c', 3)]);
  counting = false;
  assert.equal(resumed.length, 13);
  const turns = resumed.map(([, t]) => t);
  assert.equal(new Set(turns).size, turns.length, `two tasks resumed in one turn: ${JSON.stringify(resumed)}`);
  assert.deepEqual(
    resumed.slice(0, 9).map(([n]) => n),
    ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'],
  );
  assert.equal(waitingTurns(), 0);
});

it('lets I/O and timers run between two slices of concurrent tasks', async () => {
  const events: string[] = [];
  const busy = async (name: string) => {
    for (let i = 0; i < 3; i++) {
      const until = performance.now() + 3;
      while (performance.now() < until);
      events.push(name);
      await yieldTurn();
    }
  };
  const timer = new Promise<void>((resolve) =>
    setTimeout(() => {
      events.push('timer');
      resolve();
    }, 0),
  );
  await Promise.all([busy('a'), busy('b'), timer]);
  // The timer fires after the first slices, not after every slice of both tasks.
  assert.ok(events.indexOf('timer') <= 3, events.join(' '));
});

it('a short task (its first SHORT_YIELDS yields) goes before long ones already waiting; then it takes its turn with them', async () => {
  const order: string[] = [];
  const long = async (name: string, slices: number) => {
    const runner = {};
    for (let i = 0; i < SHORT_YIELDS; i++) await yieldTurn(runner); // spends its short yields
    for (let i = 0; i < slices; i++) {
      await yieldTurn(runner);
      order.push(name);
    }
  };
  const a = long('a', 6);
  const b = long('b', 6);
  // Let both become long and queue up behind each other.
  for (let i = 0; i < 2 * SHORT_YIELDS + 2; i++) await new Promise((r) => setImmediate(r));
  const startedAt = order.length;
  const shortRunner = {};
  const shortTask = (async () => {
    for (let i = 0; i < SHORT_YIELDS + 2; i++) {
      await yieldTurn(shortRunner);
      order.push('s');
    }
  })();
  await Promise.all([a, b, shortTask]);
  const after = order.slice(startedAt);
  // Its first SHORT_YIELDS resumptions come before any long task's; the rest interleave.
  assert.deepEqual(after.slice(0, SHORT_YIELDS), Array(SHORT_YIELDS).fill('s'), after.join(''));
  assert.ok(after.slice(SHORT_YIELDS).includes('s'));
  assert.equal(after.filter((x) => x === 's').length, SHORT_YIELDS + 2);
  assert.equal(waitingTurns(), 0);
});

it("runInSlices: the steps' own result; a turn only once a slice has run its budget; the watch sees every slice and the last", async () => {
  const { drain } = await import('../src/domain/steps.js');
  const { runInSlices } = await import('../src/event-loop-turns.js');
  // 40 steps of ~1 ms each (busy: no clock but the work's own), summing their indexes.
  function* work(): Generator<void, number, void> {
    let sum = 0;
    for (let i = 0; i < 40; i++) {
      const until = performance.now() + 1;
      while (performance.now() < until);
      sum += i;
      yield;
    }
    return sum;
  }
  assert.equal(drain(work()), 780);
  const slices: { ms: number; done: boolean }[] = [];
  let started = 0;
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await runInSlices(work(), 5, {}, { sliceStarted: () => started++, sliceEnded: (ms, done) => slices.push({ ms, done }) });
  counting = false;
  assert.equal(value, 780);
  assert.equal(started, slices.length);
  assert.deepEqual(
    slices.map((s) => s.done),
    [...Array(slices.length - 1).fill(false), true],
  );
  // Every slice but the last ran its budget (5 ms) before the turn, and no longer than needed: a
  // step takes at least 1 ms, so a slice ends after 5 steps at most, 8 slices or more for 40.
  for (const s of slices.slice(0, -1)) assert.ok(s.ms >= 5, `a slice ended early: ${s.ms} ms`);
  assert.ok(slices.length >= 8, `${slices.length} slices for 40 steps of 1 ms at 5 ms each`);
  assert.ok(turns >= slices.length - 1, `${turns} turns of the loop for ${slices.length} slices`);
});
