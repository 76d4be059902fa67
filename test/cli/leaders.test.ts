// `kag leaders elect`: the options' checks (pure), and a run of the CLI (a child process) against a
// gateway on a simulated cluster over real HTTP: a displaced leader is elected back.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { electionBody, electionText } from '../../src/cli/leaders.js';
import { createTopics, startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';

describe('kag leaders elect: options', () => {
  it('exactly one scope; partitions as topic:partition; unclean passes the confirmation through', () => {
    assert.deepEqual(electionBody({ all: true }), { type: 'preferred', all: true });
    assert.deepEqual(electionBody({ topics: 'a, b' }), { type: 'preferred', topics: ['a', 'b'] });
    assert.deepEqual(electionBody({ partitions: 'a:0,my.topic:12' }), {
      type: 'preferred',
      partitions: [
        { topic: 'a', partition: 0 },
        { topic: 'my.topic', partition: 12 },
      ],
    });
    assert.deepEqual(electionBody({ type: 'unclean', all: true, confirm: 'x' }), { type: 'unclean', all: true, confirm: 'x' });
    assert.match(electionBody({}) as string, /exactly one of/);
    assert.match(electionBody({ all: true, topics: 'a' }) as string, /exactly one of/);
    assert.match(electionBody({ partitions: 'a' }) as string, /topic:partition/);
    assert.match(electionBody({ type: 'dirty', all: true }) as string, /preferred or unclean/);
  });

  it('the text: counts, then one row per partition tried', () => {
    const text = electionText({
      type: 'preferred',
      scope: 'all',
      summary: { partitions: 5, elected: 1, notNeeded: 3, notAvailable: 1, unknown: 0, failed: 0 },
      results: [
        { topic: 'a', partition: 0, outcome: 'elected' },
        {
          topic: 'a',
          partition: 1,
          outcome: 'not-available',
          kafkaError: { name: 'PREFERRED_LEADER_NOT_AVAILABLE', code: 80, message: 'The preferred leader was not available.' },
        },
      ],
    });
    assert.match(text, /5 partition\(s\); 1 elected, 3 not needed, 1 not available/);
    assert.match(text, /a-1\s+not-available\s+PREFERRED_LEADER_NOT_AVAILABLE \(80\)/);
  });
});

const BIN = fileURLToPath(new URL('../../bin/kafka-admin-gateway.mjs', import.meta.url));

/** The CLI as a user runs it (a child process; importing src/cli/main.ts would run it on this process's argv). */
function kag(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('kag leaders elect against a gateway', () => {
  let gw: ReassignGateway;
  let url: string;
  let close: () => Promise<void>;
  before(async () => {
    gw = await startReassignGateway({ reconcile: false, simulator: { brokers: 3 } });
    const server = gw.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((r) => server.close(() => r()));
    await createTopics(gw, {
      name: 'cli-el',
      assignments: [
        [0, 1],
        [1, 2],
      ],
    });
  });
  after(async () => {
    await close?.();
    await gw?.close();
  });

  it('elects the preferred leader back and prints the result; a usage error exits 2', async () => {
    await gw.sim.stopBroker(0);
    await gw.sim.startBroker(0);
    assert.equal(gw.sim.model.getPartition('cli-el', 0).leader, 1);
    const done = await kag(['--url', url, '-o', 'json', 'leaders', 'elect', '--topics', 'cli-el']);
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(JSON.parse(done.stdout).results, [{ topic: 'cli-el', partition: 0, outcome: 'elected' }]);
    assert.equal(gw.sim.model.getPartition('cli-el', 0).leader, 0);
    const [usage, refused] = await Promise.all([
      kag(['--url', url, 'leaders', 'elect']),
      kag(['--url', url, 'leaders', 'elect', '--type', 'unclean', '--all']),
    ]);
    assert.equal(usage.code, 2);
    assert.equal(refused.code, 1, 'the gateway refuses an unclean election without the confirmation');
    assert.match(refused.stderr, /unclean-election-may-lose-data/);
  });
});
