// LeaderElectionService (POST /leaders/elections) over a Kafka layer double: the request checks
// (src/domain/leaders.ts), what is sent for `all` at 100,000 partitions (only the partitions
// whose leader is not the preferred one, in requests of at most ELECTION_BATCH), and the counts.
// The election over the wire is test/http/leaders.integration.test.ts's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ELECTION_STATUS, nextElections, parseElectionRequest, tallyOf, UNCLEAN_CONFIRMATION } from '../../src/domain/leaders.js';
import type { ElectLeadersAnswer } from '../../src/kafka/apis/elect-leaders.js';
import type { KafkaAdmin } from '../../src/kafka/kafka-admin.js';
import { ELECTION_BATCH } from '../../src/kafka/leaders.js';
import { LeaderElectionService } from '../../src/services/leaders.js';

describe('parseElectionRequest', () => {
  it('exactly one scope; unclean only with the confirmation; nothing named twice', () => {
    assert.ok(parseElectionRequest({ type: 'preferred', all: true }).ok);
    assert.ok(parseElectionRequest({ type: 'unclean', topics: ['a'], confirm: UNCLEAN_CONFIRMATION }).ok);
    const paths = (body: object) => {
      const r = parseElectionRequest(body);
      assert.ok(!r.ok);
      return r.errors.map((e) => e.path);
    };
    assert.deepEqual(paths({ type: 'preferred' }), ['/body']);
    assert.deepEqual(paths({ type: 'preferred', all: true, topics: ['a'] }), ['/body']);
    assert.deepEqual(paths({ type: 'unclean', all: true }), ['/body/confirm']);
    assert.deepEqual(paths({ type: 'unclean', all: true, confirm: 'yes' }), ['/body/confirm']);
    assert.deepEqual(paths({ type: 'preferred', topics: ['a', 'a'] }), ['/body/topics/1']);
    assert.deepEqual(
      paths({
        type: 'preferred',
        partitions: [
          { topic: 'a', partition: 0 },
          { topic: 'a', partition: 0 },
        ],
      }),
      ['/body/partitions/1'],
    );
  });
});

describe("nextElections and tallyOf (a reassignment's elections)", () => {
  it('completed partitions not answered yet, up to the limit; the tally counts leading, failed, pending', () => {
    const ps = [
      { state: 'completed' },
      { state: 'completed' },
      { state: 'moving' },
      { state: 'completed', supersededBy: 'r2' },
      { state: 'completed' },
      { state: 'completed' },
    ];
    const status = new Uint8Array(ps.length);
    assert.deepEqual(nextElections(ps, status, 10), [0, 1, 4, 5]);
    assert.deepEqual(nextElections(ps, status, 2), [0, 1]);
    status[0] = ELECTION_STATUS.LEADING;
    status[1] = ELECTION_STATUS.FAILED;
    assert.deepEqual(nextElections(ps, status, 10), [4, 5]);
    assert.deepEqual(tallyOf(ps, status), { elected: 1, failed: 1, pending: 2, completed: 4 });
  });
});

describe('LeaderElectionService, all at 100,000 partitions', () => {
  it('sends only the partitions that need it, in batches of at most 5,000; counts every partition', async () => {
    const N = 100_000;
    const partitions = Array.from({ length: N }, (_, i) => ({
      partition: i,
      replicas: [i % 10, (i + 1) % 10],
      leader: i % 3 === 0 ? (i + 1) % 10 : i % 10,
    }));
    const batches: number[] = [];
    const kafka = {
      describePartitions: async (topics: string[] | null) => {
        assert.equal(topics, null);
        return [{ name: 'big', partitions }];
      },
      electLeaders: async (type: string, ps: { topic: string; partition: number }[] | null): Promise<ElectLeadersAnswer> => {
        assert.equal(type, 'preferred');
        assert.ok(ps !== null, 'never null: KRaft bounds one request to 10,000 records');
        batches.push(ps.length);
        // Every 1000th is refused: its preferred replica is down.
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          partitions: ps.map((p) => ({
            ...p,
            errorCode: p.partition % 1000 === 0 ? 80 : 0,
            errorMessage: p.partition % 1000 === 0 ? 'The preferred leader was not available.' : null,
          })),
        };
      },
    } as unknown as KafkaAdmin;
    const out = await new LeaderElectionService(kafka).elect({ type: 'preferred', scope: { kind: 'all' } });
    assert.equal(out.kind, 'ok');
    if (out.kind !== 'ok') return;
    const needing = partitions.filter((p) => p.leader !== p.replicas[0]).length;
    assert.equal(
      batches.reduce((a, b) => a + b, 0),
      needing,
    );
    assert.ok(
      batches.every((b) => b <= ELECTION_BATCH),
      String(batches),
    );
    assert.equal(batches.length, Math.ceil(needing / ELECTION_BATCH));
    const refused = partitions.filter((p) => p.leader !== p.replicas[0] && p.partition % 1000 === 0).length;
    assert.deepEqual(out.summary, {
      partitions: N,
      elected: needing - refused,
      notNeeded: N - needing,
      notAvailable: refused,
      unknown: 0,
      failed: 0,
    });
    assert.equal(out.results.length, needing, 'only the partitions tried are listed');
    assert.equal(out.results.find((r) => r.outcome === 'not-available')?.kafkaError?.name, 'PREFERRED_LEADER_NOT_AVAILABLE');
  });

  it('a Kafka layer without ElectLeaders answers not-supported; an unknown topic answers unknown-topics and elects nothing', async () => {
    const none = { describePartitions: async () => [] } as unknown as KafkaAdmin;
    assert.equal((await new LeaderElectionService(none).elect({ type: 'preferred', scope: { kind: 'all' } })).kind, 'not-supported');
    let sent = 0;
    const kafka = {
      describePartitions: async () => [{ name: 'a', partitions: [{ partition: 0, replicas: [1, 2], leader: 2 }] }],
      electLeaders: async () => {
        sent++;
        return { throttleTimeMs: 0, errorCode: 0, partitions: [] };
      },
    } as unknown as KafkaAdmin;
    const out = await new LeaderElectionService(kafka).elect({ type: 'preferred', scope: { kind: 'topics', topics: ['a', 'b'] } });
    assert.deepEqual(out, { kind: 'unknown-topics', topics: ['b'] });
    assert.equal(sent, 0);
  });
});
