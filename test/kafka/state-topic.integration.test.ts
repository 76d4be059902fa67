// The state topic's read over the wire: keys the reader already holds are left out unread
// (their values are never decoded from the fetched batches), tombstones never are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { StateTopic } from '../../src/kafka/state-topic.js';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';

let sim: Simulator;
let kafka: PlatformaticKafkaGateway;
before(async () => {
  sim = await startSimulator({ brokers: 1, clock: new ManualClock() });
  kafka = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }));
});
after(async () => {
  await kafka?.close();
  await sim?.close();
});

describe('StateTopic.read', () => {
  it('leaves out the records whose key `skip` accepts, except tombstones; the rest in offset order', async () => {
    const st = new StateTopic(kafka, { name: '_state_skip' });
    await st.ensure();
    await st.write([
      { key: 'held', value: 'x'.repeat(1000) },
      { key: 'new', value: '1' },
    ]);
    await st.write([
      { key: 'held', value: null },
      { key: 'other', value: '2' },
    ]);
    const { start, end } = await st.offsets();
    const asked: string[] = [];
    const records = await st.read(start, end, { skip: (key) => (asked.push(key), key === 'held') });
    assert.deepEqual(records, [
      { offset: 1n, key: 'new', value: '1' },
      { offset: 2n, key: 'held', value: null },
      { offset: 3n, key: 'other', value: '2' },
    ]);
    assert.deepEqual(asked, ['held', 'new', 'other'], 'asked once per record with a value');
    assert.equal((await st.read(start, end)).length, 4, 'without skip, every record');
  });
});

describe('StateTopic.offsets', () => {
  it('with its leader known (one round trip): every acknowledged write counted, and a topic re-created under the same name seen by its new id', async () => {
    const st = new StateTopic(kafka, { name: '_state_offsets' });
    await st.ensure();
    const first = await st.offsets();
    assert.deepEqual([first.start, first.end], [0n, 0n]);
    for (let i = 1; i <= 3; i++) {
      await st.write([{ key: `k${i}`, value: String(i) }]);
      const o = await st.offsets();
      assert.deepEqual([o.start, o.end, o.topicId], [0n, BigInt(i), first.topicId], `after write ${i}`);
    }
    // Deleted and created again (Kafka's tools, a rebuilt cluster): same name, same leader, a new id.
    sim.model.deleteTopic('_state_offsets');
    sim.model.createTopic({ name: '_state_offsets', assignments: [{ partition: 0, brokerIds: [0] }] });
    const again = await st.offsets();
    assert.notEqual(again.topicId, first.topicId);
    assert.deepEqual([again.start, again.end], [0n, 0n]);
    // Deleted for good: reported as missing, not answered with stale offsets.
    sim.model.deleteTopic('_state_offsets');
    await assert.rejects(
      st.offsets(),
      (err: Error) => err.name === 'StateTopicMissingError' || /missing|does not exist/i.test(err.message),
    );
  });
});
