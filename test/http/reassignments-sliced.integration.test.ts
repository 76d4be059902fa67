// Large /reassignments answers are written in slices (src/http/json-slices.ts): the same text
// as res.json, here with the threshold lowered so a small reassignment takes that path.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SLICED_FROM_SETTING } from '../../src/http/json-slices.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

let gw: ReassignGateway;
before(async () => {
  gw = await startReassignGateway({ simulator: { brokers: 4 } });
  await createTopics(gw, { name: 'sl', assignments: Array.from({ length: 40 }, (_, p) => [p % 4, (p + 1) % 4]) });
});
after(async () => gw?.close());

const partitions = Array.from({ length: 40 }, (_, p) => ({
  topic: 'sl',
  partition: 39 - p,
  replicas: [(p + 2) % 4, (p + 3) % 4],
  log_dirs: ['any', 'any'],
}));

describe('sliced answers of /reassignments', () => {
  it('validateOnly with detail answers the same bytes and headers sliced as with res.json', async () => {
    const ask = () => gw.http().post('/reassignments?validateOnly=true&detail=true').send({ version: 1, partitions, throttle: 4096 });
    gw.app.set(SLICED_FROM_SETTING, undefined);
    const whole = await ask();
    gw.app.set(SLICED_FROM_SETTING, 10);
    const sliced = await ask();
    gw.app.set(SLICED_FROM_SETTING, undefined);
    assert.equal(whole.status, 200, whole.text);
    assert.equal(sliced.status, 200);
    assert.equal(sliced.text, whole.text);
    for (const h of ['content-type', 'content-length', 'etag']) assert.equal(sliced.headers[h], whole.headers[h], h);
    assert.equal(whole.body.partitions.length, 40);
    assert.equal(whole.body.rollback.partitions.length, 40);
  });

  it('the started reassignment, its GET and its cancel-with-rollback answer the rollback file in slices', async () => {
    gw.app.set(SLICED_FROM_SETTING, 10);
    try {
      const res = await gw.http().post('/reassignments?detail=true').send({ version: 1, partitions, throttle: 1024 });
      assert.equal(res.status, 202, res.text);
      assert.match(res.headers['content-type'] ?? '', /^application\/json; charset=utf-8$/);
      assert.equal(res.headers.location, `/reassignments/${res.body.id}`);
      const rollback = res.body.rollback.partitions;
      assert.deepEqual(
        rollback.map((r: any) => `${r.topic}:${r.partition}:${r.replicas.join(',')}:${r.log_dirs.join(',')}`),
        Array.from({ length: 40 }, (_, p) => `sl:${p}:${p % 4},${(p + 1) % 4}:any,any`),
      );
      assert.equal(res.body.plan.partitions.length, 40);
      assert.equal(res.text, JSON.stringify(res.body));
      const got = await gw.http().get(`/reassignments/${res.body.id}?detail=true`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body.rollback, res.body.rollback);
      const cancelled = await gw.http().delete(`/reassignments/${res.body.id}?rollback=true`);
      assert.equal(cancelled.status, 202, cancelled.text);
      assert.equal(cancelled.body.rollback.rollback.partitions.length, 40);
    } finally {
      gw.app.set(SLICED_FROM_SETTING, undefined);
    }
  });
});
