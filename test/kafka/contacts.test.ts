// The contact set (src/kafka/contacts.ts): which addresses a request any broker may answer is
// sent to, in which order, and how long a failed address stays at the back. Hand-driven clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokerContacts, CONTACT_BACKOFF_MAX_MS, CONTACT_BACKOFF_MS } from '../../src/kafka/contacts.js';

const at = (port: number) => ({ host: 'h', port });
const ports = (c: BrokerContacts) => c.candidates().map((a) => a.port);
const cluster = [
  { id: 2, host: 'h', port: 9002 },
  { id: 0, host: 'h', port: 9000 },
  { id: 1, host: 'h', port: 9001 },
];

function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

test('before any answer: the seeds, in configured order', () => {
  const c = new BrokerContacts([at(9100), at(9000)]);
  assert.equal(c.learned, false);
  assert.deepEqual(ports(c), [9100, 9000]);
});

test('after an answer: the preferred broker, the others by id, then the seeds not listed', () => {
  const c = new BrokerContacts([at(9100), at(9001)]);
  c.learn(cluster);
  assert.equal(c.learned, true);
  assert.deepEqual(ports(c), [9000, 9001, 9002, 9100]);
  c.reached(at(9002), true);
  assert.deepEqual(ports(c), [9002, 9000, 9001, 9100]);
  c.reached(at(9001), false); // a request for one broker does not change the preferred one
  assert.deepEqual(ports(c), [9002, 9000, 9001, 9100]);
  assert.deepEqual(c.broker(2), at(9002));
  c.learn([]); // an answer without brokers changes nothing
  assert.deepEqual(c.broker(2), at(9002));
});

test('a broker the cluster no longer lists is not preferred', () => {
  const c = new BrokerContacts([at(9000)]);
  c.learn(cluster);
  c.reached(at(9002), true);
  c.learn(cluster.filter((b) => b.id !== 2));
  assert.deepEqual(ports(c), [9000, 9001]);
  assert.equal(c.has(2), false);
});

test('a failed address goes to the back for a back-off that doubles per failure, up to the cap; a connection clears it', () => {
  const t = clock();
  const c = new BrokerContacts([at(9000)], { now: t.now });
  c.learn(cluster);
  c.reached(at(9000), true);
  c.failed(at(9000));
  assert.deepEqual(ports(c), [9001, 9002, 9000], 'no longer preferred, and last');
  assert.equal(c.backingOff(at(9000)), true);
  t.advance(CONTACT_BACKOFF_MS);
  assert.equal(c.backingOff(at(9000)), false);
  assert.deepEqual(ports(c), [9000, 9001, 9002]);
  c.failed(at(9000)); // second in a row: twice as long
  t.advance(CONTACT_BACKOFF_MS);
  assert.equal(c.backingOff(at(9000)), true);
  t.advance(CONTACT_BACKOFF_MS);
  assert.equal(c.backingOff(at(9000)), false);
  for (let i = 0; i < 40; i++) c.failed(at(9000));
  t.advance(CONTACT_BACKOFF_MAX_MS - 1);
  assert.equal(c.backingOff(at(9000)), true);
  t.advance(1);
  assert.equal(c.backingOff(at(9000)), false, 'capped');
  c.failed(at(9000));
  c.reached(at(9000), false);
  assert.equal(c.backingOff(at(9000)), false);
  c.failed(at(9000));
  t.advance(CONTACT_BACKOFF_MS);
  assert.equal(c.backingOff(at(9000)), false, 'the count starts again after a connection');
});

test('when every address is in back-off, all are still tried, the soonest to expire first', () => {
  const t = clock();
  const c = new BrokerContacts([at(9000)], { now: t.now });
  c.learn(cluster);
  c.failed(at(9001));
  c.failed(at(9001));
  c.failed(at(9000));
  c.failed(at(9002));
  assert.deepEqual(ports(c), [9000, 9002, 9001]);
});

test('learnOnce: one Metadata for concurrent callers; another after it settled, even after a failure', async () => {
  const c = new BrokerContacts([at(9000)]);
  let runs = 0;
  let release!: () => void;
  const learn = () => {
    runs++;
    return new Promise<void>((resolve) => (release = resolve));
  };
  const both = Promise.all([c.learnOnce(learn), c.learnOnce(learn)]);
  release();
  await both;
  assert.equal(runs, 1);
  await c.learnOnce(() => Promise.reject(new Error('refused')));
  await c.learnOnce(async () => void runs++);
  assert.equal(runs, 2);
});

test('first() is always candidates()[0], whatever failed, answered or was learned before (a seeded random walk)', () => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const time = clock();
  const c = new BrokerContacts([at(9100), at(9000)], { now: time.now });
  const addresses = [at(9000), at(9001), at(9002), at(9100)];
  for (let step = 0; step < 2000; step++) {
    const a = addresses[rnd(addresses.length)];
    const op = rnd(5);
    if (op === 0) c.failed(a);
    else if (op === 1) c.reached(a, rnd(2) === 0);
    else if (op === 2) c.reached(c.first(), true);
    else if (op === 3) time.advance(rnd(3 * CONTACT_BACKOFF_MS));
    else if (rnd(4) === 0) c.learn(cluster.slice(0, 1 + rnd(3)));
    const first = c.first();
    assert.deepEqual({ host: first.host, port: first.port }, c.candidates()[0], `step ${step}`);
  }
});

test('an answer that lists the brokers known already changes nothing; one that differs in any broker replaces them', () => {
  const c = new BrokerContacts([at(9100)]);
  c.learn(cluster);
  c.reached(at(9001), true);
  c.learn(cluster.map((b) => ({ ...b })));
  assert.deepEqual(ports(c), [9001, 9000, 9002, 9100], 'the preferred broker kept');
  c.learn([cluster[0], cluster[1], { id: 1, host: 'h', port: 9011 }]);
  assert.equal(c.broker(1)?.port, 9011);
  assert.deepEqual(ports(c), [9000, 9011, 9002, 9100], 'the preferred address is no longer listed');
  c.learn([cluster[0], cluster[0], cluster[1]]);
  assert.equal(c.has(1), false, 'a list with a repeated id is not the same list');
});
