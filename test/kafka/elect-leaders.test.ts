// The gateway's ElectLeaders module (src/kafka/apis/elect-leaders.ts), every version v0-v2:
// its requests read back by the simulator's codec (generated from Kafka's message specs), the
// simulator codec's responses read by the module, and each version over real TCP through the
// Kafka layer against the simulator (request and response header forms included).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeElectLeadersResponse, encodeElectLeadersRequest, groupPartitions } from '../../src/kafka/apis/elect-leaders.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { Reader } from '../../src/sim/protocol/buffers.js';
import { decode, encode } from '../../src/sim/protocol/codec.js';
import {
  ElectLeadersRequestSchema,
  ElectLeadersResponseSchema,
  type ElectLeadersRequest,
  type ElectLeadersResponse,
} from '../../src/sim/protocol/messages.generated.js';
import { createTopics, startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';

describe('ElectLeaders encoding, v0-v2', () => {
  for (const version of [0, 1, 2]) {
    it(`v${version}: the request as Kafka's spec reads it`, () => {
      const topics = groupPartitions([
        { topic: 'orders', partition: 0 },
        { topic: 'clicks', partition: 3 },
        { topic: 'orders', partition: 5 },
        { topic: 'ünï-cödé', partition: 1 },
      ]);
      const body = encodeElectLeadersRequest(version, 'preferred', topics, 12345);
      const r = new Reader(body);
      const read = decode<ElectLeadersRequest>(ElectLeadersRequestSchema, version, r);
      assert.equal(r.remaining(), 0, 'nothing left over');
      assert.deepEqual(read.topicPartitions, [
        { topic: 'orders', partitions: [0, 5] },
        { topic: 'clicks', partitions: [3] },
        { topic: 'ünï-cödé', partitions: [1] },
      ]);
      assert.equal(read.timeoutMs, 12345);
      if (version >= 1) assert.equal(read.electionType, 0);
      const all = decode<ElectLeadersRequest>(
        ElectLeadersRequestSchema,
        version,
        new Reader(encodeElectLeadersRequest(version, 'preferred', null, 1)),
      );
      assert.equal(all.topicPartitions, null, 'null = every partition');
    });

    it(`v${version}: the response as the module reads it`, () => {
      const value: ElectLeadersResponse = {
        throttleTimeMs: 7,
        ...(version >= 1 && { errorCode: 0 }),
        replicaElectionResults: [
          {
            topic: 'orders',
            partitionResult: [
              { partitionId: 0, errorCode: 0, errorMessage: null },
              { partitionId: 1, errorCode: 84, errorMessage: 'Leader election not needed for topic partition.' },
            ],
          },
          { topic: 'empty', partitionResult: [] },
          { topic: 'x', partitionResult: [{ partitionId: 9, errorCode: 3, errorMessage: 'No such partition as x-9' }] },
        ],
      };
      const buf = encode(ElectLeadersResponseSchema, version, value).toBuffer();
      const r = new WireReader(buf);
      const a = decodeElectLeadersResponse(r, version);
      assert.equal(r.remaining, 0);
      assert.equal(a.throttleTimeMs, 7);
      assert.equal(a.errorCode, 0);
      assert.deepEqual(a.partitions, [
        { topic: 'orders', partition: 0, errorCode: 0, errorMessage: null },
        { topic: 'orders', partition: 1, errorCode: 84, errorMessage: 'Leader election not needed for topic partition.' },
        { topic: 'x', partition: 9, errorCode: 3, errorMessage: 'No such partition as x-9' },
      ]);
    });
  }

  it("v1+ carry the election type; v0 cannot send an unclean election (as Kafka's Builder refuses)", () => {
    for (const version of [1, 2]) {
      const read = decode<ElectLeadersRequest>(
        ElectLeadersRequestSchema,
        version,
        new Reader(encodeElectLeadersRequest(version, 'unclean', [['t', [0]]], 1)),
      );
      assert.equal(read.electionType, 1);
    }
    assert.throws(() => encodeElectLeadersRequest(0, 'unclean', null, 1), /only supports preferred/);
    assert.throws(() => encodeElectLeadersRequest(3, 'preferred', null, 1), /not supported/);
  });

  it('a truncated answer is refused, not misread', () => {
    const buf = encode(ElectLeadersResponseSchema, 2, {
      throttleTimeMs: 0,
      errorCode: 0,
      replicaElectionResults: [{ topic: 'orders', partitionResult: [{ partitionId: 0, errorCode: 0, errorMessage: null }] }],
    }).toBuffer();
    assert.throws(() => decodeElectLeadersResponse(new WireReader(buf.subarray(0, buf.length - 4)), 2));
  });
});

describe('ElectLeaders over TCP, every version', () => {
  let gw: ReassignGateway;
  before(async () => {
    gw = await startReassignGateway({ reconcile: false, simulator: { brokers: 3 } });
    await createTopics(gw, {
      name: 'ver',
      assignments: [
        [0, 1],
        [0, 2],
        [0, 1],
      ],
    });
  });
  after(() => gw?.close());

  for (const version of [0, 1, 2] as const) {
    it(`v${version}: the preferred leader of a displaced partition is elected; the others need none`, async () => {
      await gw.sim.stopBroker(0);
      await gw.sim.startBroker(0);
      const partition = version;
      assert.notEqual(gw.sim.model.getPartition('ver', partition).leader, 0);
      const a = await gw.kafka.electLeaders(
        'preferred',
        [
          { topic: 'ver', partition },
          { topic: 'nope', partition: 0 },
        ],
        { version },
      );
      assert.equal(a.errorCode, 0);
      assert.deepEqual(
        a.partitions.map((p) => [p.topic, p.partition, p.errorCode]),
        [
          ['ver', partition, 0],
          ['nope', 0, 3],
        ],
      );
      assert.equal(gw.sim.model.getPartition('ver', partition).leader, 0);
      // Reset the other two for the next version (stopping 0 displaced all three).
      await gw.kafka.electLeaders('preferred', null, { version });
    });
  }
});
