// Clients no one here wrote talk to the simulator: kcat (librdkafka) and kafka-python's
// admin client, both from Debian's packages (.ci/run installs them). Locally they are
// skipped when missing; under CI a missing client is a failure, not a skip.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const run = promisify(execFile);
const KCAT = '/usr/bin/kcat';
const PYTHON = '/usr/bin/python3';

async function hasKafkaPython(): Promise<boolean> {
  try {
    await run(PYTHON, ['-c', 'import kafka']);
    return true;
  } catch {
    return false;
  }
}
const mustHave = process.env.CI === 'true';
const kcatSkip = existsSync(KCAT) || mustHave ? false : 'kcat is not installed (apt-get install kcat)';
const pySkip = (await hasKafkaPython()) || mustHave ? false : 'kafka-python is not installed (apt-get install python3-kafka)';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3, racks: ['r1', 'r2', 'r3'] });
});
after(async () => {
  await sim.close();
});

test('kcat -L lists brokers and topics', { skip: kcatSkip }, async () => {
  sim.model.createTopic({ name: 'listed', numPartitions: 2, replicationFactor: 3, assignments: [], configs: [] }, { validateOnly: false });
  const { stdout } = await run(KCAT, ['-b', sim.bootstrapServers.join(','), '-L', '-J'], { timeout: 20_000 });
  const md = JSON.parse(stdout);
  assert.deepEqual(md.brokers.map((b: any) => b.id).sort(), [0, 1, 2]);
  const topic = md.topics.find((t: any) => t.topic === 'listed');
  assert.equal(topic.partitions.length, 2);
  assert.equal(topic.partitions[0].replicas.length, 3);
});

test('kcat produces and consumes through Produce, ListOffsets and Fetch', { skip: kcatSkip }, async () => {
  sim.model.createTopic({ name: 'kc', numPartitions: 1, replicationFactor: 2, assignments: [], configs: [] }, { validateOnly: false });
  const bootstrap = sim.bootstrapServers.join(',');
  const producer = execFile(KCAT, ['-b', bootstrap, '-P', '-t', 'kc', '-p', '0', '-K', ':'], { timeout: 20_000 });
  producer.stdin!.end('a:one\nb:two\nc:three\n');
  await new Promise<void>((resolve, reject) =>
    producer.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kcat -P exited ${code}`)))),
  );
  assert.equal(sim.model.listOffset('kc', 0, -1).offset, 3);
  const { stdout } = await run(KCAT, ['-b', bootstrap, '-C', '-t', 'kc', '-p', '0', '-o', 'beginning', '-e', '-f', '%k=%s@%o\n'], {
    timeout: 20_000,
  });
  assert.deepEqual(stdout.trim().split('\n'), ['a=one@0', 'b=two@1', 'c=three@2']);
});

test("kafka-python's admin client creates, describes and deletes topics", { skip: pySkip }, async () => {
  const script = `
import json, sys
from kafka.admin import KafkaAdminClient, NewTopic, NewPartitions, ConfigResource, ConfigResourceType
from kafka.errors import TopicAlreadyExistsError
a = KafkaAdminClient(bootstrap_servers=sys.argv[1], client_id='kafka-python-test', request_timeout_ms=10000)
out = {}
a.create_topics([NewTopic('py', 3, 2, topic_configs={'retention.ms': '5000'})])
try:
    a.create_topics([NewTopic('py', 1, 1)])
    out['dup'] = 'no error'
except TopicAlreadyExistsError as e:
    out['dup'] = type(e).__name__
a.create_partitions({'py': NewPartitions(5)})
out['topics'] = sorted(a.list_topics())
desc = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, 'py')])
out['retention'] = [c for c in desc[0].resources[0][4] if c[0] == 'retention.ms'][0][1]
md = a.describe_topics(['py'])
out['partitions'] = len(md[0]['partitions'])
a.delete_topics(['py'])
out['after'] = sorted(a.list_topics())
a.close()
print(json.dumps(out))
`;
  const { stdout } = await run(PYTHON, ['-c', script, sim.bootstrapServers[0]], { timeout: 60_000 });
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  assert.equal(out.dup, 'TopicAlreadyExistsError');
  assert.ok(out.topics.includes('py'));
  assert.equal(out.retention, '5000');
  assert.equal(out.partitions, 5);
  assert.ok(!out.after.includes('py'));
});
