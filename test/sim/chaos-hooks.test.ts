// The simulator's hooks for the chaos harness (test/chaos): faults matched on the request
// header's client id (one gateway instance of several held or failed), a client cut off as if
// its process died (its connections closed now, unanswered, and for good), and the journal of
// AlterPartitionReassignments entries the controller applied, with the sender's client id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startSimulator, type AlteredReassignment, type Simulator } from '../../src/sim/index.js';
import { FaultSpecError, parseFaultSpec } from '../../src/sim/faults.js';
import { exchange, frame } from './wire.js';

const port = (sim: Simulator, id = 0): number => sim.endpoints().find((e) => e.id === id)!.port;
const CLUSTER = { includeClusterAuthorizedOperations: false };

/** DescribeCluster v0 as `clientId`, on a fresh connection: its error code, or 'closed'. */
async function describeAs(sim: Simulator, clientId: string | null): Promise<number | 'closed'> {
  const answer = await exchange(port(sim), frame(60, 0, CLUSTER, 1, clientId));
  if (answer === 'closed') return 'closed';
  // Response header v1 (flexible): correlation id, tagged fields; then throttle_time_ms, error_code.
  return answer.readInt16BE(4 + 1 + 4);
}

test('a fault with a clientId takes only the requests naming that client id', async () => {
  const sim = await startSimulator({ brokers: 1 });
  try {
    const f = sim.faults.add({ apiKey: 60, clientId: 'gw-a', error: { code: 7 } });
    assert.equal(await describeAs(sim, 'gw-b'), 0);
    assert.equal(await describeAs(sim, null), 0);
    assert.equal(await describeAs(sim, 'gw-a'), 7);
    assert.deepEqual([sim.faults.get(f.id)?.matched, sim.faults.get(f.id)?.applied], [1, 1]);
    const seen: (string | null)[] = [];
    const off = sim.faults.onApplied((e) => seen.push(e.clientId));
    await describeAs(sim, 'gw-a');
    off();
    assert.deepEqual(seen, ['gw-a']);
    assert.deepEqual(parseFaultSpec({ apiKey: 60, clientId: 'x', delayMs: 5 }), { apiKey: 60, clientId: 'x', delayMs: 5 });
    assert.throws(() => parseFaultSpec({ apiKey: 60, clientId: 3, delayMs: 5 }), FaultSpecError);
  } finally {
    await sim.close();
  }
});

test('cutOffClient closes that client’s connections unanswered (a held request is never handled) and refuses it for good', async () => {
  const sim = await startSimulator({ brokers: 2 });
  try {
    sim.model.createTopic({ name: 'c', assignments: [{ partition: 0, brokerIds: [0] }] });
    // A move held by a delay: the cut-off connection's request must never reach the controller.
    sim.faults.add({ apiKey: 45, clientId: 'doomed', delayMs: 60_000 });
    const socket = net.connect(port(sim), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const closed = new Promise((r) => socket.once('close', r));
    const body = { timeoutMs: 1000, topics: [{ name: 'c', partitions: [{ partitionIndex: 0, replicas: [1] }] }] };
    const held = new Promise<void>((resolve) => {
      const off = sim.faults.onApplied(() => (off(), resolve()));
    });
    socket.write(frame(45, 0, body, 1, 'doomed'));
    await held;
    const other = await describeAs(sim, 'survivor');
    assert.equal(sim.cutOffClient('doomed'), 1, 'the one connection of that client id');
    await closed;
    assert.equal(sim.model.movingPartitionCount(), 0, 'the held request was never handled');
    assert.equal(await describeAs(sim, 'doomed'), 'closed', 'a new connection under that id is closed at its first request');
    assert.equal(await describeAs(sim, 'survivor'), other, 'other clients are served');
  } finally {
    await sim.close();
  }
});

test('onReassignmentAltered: every applied entry, before and after, with the sender; refused entries are not reported', async () => {
  const sim = await startSimulator({ brokers: 3, seedBytes: 10_000_000, replicationBytesPerSecond: 1_000_000 });
  try {
    sim.model.createTopic({
      name: 'j',
      assignments: [
        { partition: 0, brokerIds: [0] },
        { partition: 1, brokerIds: [1] },
      ],
    });
    const events: AlteredReassignment[] = [];
    const off = sim.onReassignmentAltered((e) => events.push(e));
    const alter = (partitions: { partitionIndex: number; replicas: number[] | null }[], clientId: string) =>
      exchange(port(sim), frame(45, 0, { timeoutMs: 1000, topics: [{ name: 'j', partitions }] }, 1, clientId));
    await alter(
      [
        { partitionIndex: 0, replicas: [2] },
        { partitionIndex: 1, replicas: [9] },
      ],
      'gw-a',
    ); // 1: unknown broker, refused
    await alter([{ partitionIndex: 0, replicas: [2] }], 'gw-b'); // the same target again: still moving
    await alter([{ partitionIndex: 0, replicas: null }], 'gw-c'); // cancelled
    off();
    await alter([{ partitionIndex: 1, replicas: [2] }], 'gw-d'); // not heard any more
    assert.equal(events.length, 3, JSON.stringify(events));
    const [start, again, cancel] = events as [AlteredReassignment, AlteredReassignment, AlteredReassignment];
    assert.deepEqual(
      { ...start, at: 0 },
      {
        ...{ topic: 'j', partition: 0, target: [2], wasMoving: false, moving: true },
        ...{ replicasBefore: [0], replicas: [2, 0], leaderBefore: 0, leader: 0, at: 0, source: { clientId: 'gw-a', brokerId: 0 } },
      },
    );
    assert.deepEqual([again.wasMoving, again.moving, again.source?.clientId], [true, true, 'gw-b']);
    const cancelled = [cancel.target, cancel.wasMoving, cancel.moving, cancel.replicas, cancel.source?.clientId];
    assert.deepEqual(cancelled, [null, true, false, [0], 'gw-c']);
    assert.ok(start.at <= again.at && again.at <= cancel.at);
  } finally {
    await sim.close();
  }
});
