import assert from 'node:assert/strict';
import { it } from 'node:test';
import { waitingTurns, yieldTurn } from '../src/event-loop-turns.js';

it('resumes one waiting task per turn of the event loop, in turn (first in, first out)', async () => {
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
      await yieldTurn();
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
  const timer = new Promise<void>((resolve) => setTimeout(() => {
    events.push('timer');
    resolve();
  }, 0));
  await Promise.all([busy('a'), busy('b'), timer]);
  // The timer fires after the first slices, not after every slice of both tasks.
  assert.ok(events.indexOf('timer') <= 3, events.join(' '));
});
