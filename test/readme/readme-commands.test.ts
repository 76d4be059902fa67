// The convention readme-curl.test.ts reads the README with (readme-commands.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readmeCommands, splitComment, usingItBlocks } from './readme-commands.js';
import { holds, problemOf, type CommandResult } from './readme-run.js';

const fence = '```';
const readme = [
  '# Title',
  `${fence}sh`,
  'curl -s localhost:8080/before-using-it',
  fence,
  '## Using it',
  '',
  `${fence}sh`,
  '# Create (201 + Location)',
  "curl -s -X POST localhost:8080/topics -H 'content-type: application/json' \\",
  `  -d '{"name":"a # not a comment"}'`,
  'curl -s localhost:8080/topics/a            # one topic',
  '                                           # (a second comment line)',
  "ID=$(jq '{plan: .}' plan.json | \\",
  '  curl -s -X POST localhost:8080/reassignments -d @- | jq -r .id)',
  'sleep 4',
  'next="/reassignments/$ID/partitions"',
  "node -e 'server()' &",
  'curl -si -X DELETE localhost:8080/topics/a   # 204',
  'curl -s -H "Authorization: Bearer $T" localhost:8080/topics   # (not on the demo: tokens)',
  'npm run token:new -- --name x',
  'export KAG_URL=http://localhost:8080',
  'curl -s -X POST 127.0.0.1:19999/brokers/1/stop',
  'curl -s localhost:8080/throttles   # {"rates":[],"replicas":[]}',
  "jq '{movedReplicas}' plan.json",
  '# {"movedReplicas":5}',
  "jq '.a' plan.json | head",
  'curl -X PUT .../quotas -d "{}"',
  fence,
  '',
  `${fence}json`,
  '{"curl": "localhost:8080"}',
  fence,
  '',
  `  ${fence}sh`,
  "  curl -si -X DELETE 'localhost:8080/quotas?ip=10.0.0.7'   # 429, Retry-After: 4",
  `  ${fence}`,
  '## Errors',
  `${fence}sh`,
  'curl -s localhost:8080/after-using-it',
  fence,
].join('\n');

test('only the sh blocks of "Using it" are read, indented ones too', () => {
  const blocks = usingItBlocks(readme);
  assert.deepEqual(
    blocks.map((b) => b.line),
    [8, 35],
  );
  assert.equal(blocks[1].lines[0], "curl -si -X DELETE 'localhost:8080/quotas?ip=10.0.0.7'   # 429, Retry-After: 4");
});

test('commands: continuations joined, what runs, the status each must answer, the skip marker', () => {
  const { run, skipped } = readmeCommands(readme);
  assert.deepEqual(
    run.map((c) => [c.line, c.expectedStatus, c.text.split('\n')[0]]),
    [
      [9, 201, "curl -s -X POST localhost:8080/topics -H 'content-type: application/json' \\"],
      [11, null, 'curl -s localhost:8080/topics/a            # one topic'],
      [13, null, "ID=$(jq '{plan: .}' plan.json | \\"],
      [15, null, 'sleep 4'],
      [16, null, 'next="/reassignments/$ID/partitions"'],
      [17, null, "node -e 'server()' &"],
      [18, 204, 'curl -si -X DELETE localhost:8080/topics/a   # 204'],
      [22, null, 'curl -s -X POST 127.0.0.1:19999/brokers/1/stop'],
      [23, null, 'curl -s localhost:8080/throttles   # {"rates":[],"replicas":[]}'],
      [24, null, "jq '{movedReplicas}' plan.json"],
      [35, 429, "curl -si -X DELETE 'localhost:8080/quotas?ip=10.0.0.7'   # 429, Retry-After: 4"],
    ],
  );
  assert.deepEqual(run[8].expectedJson, { rates: [], replicas: [] });
  assert.equal(run[7].expectedJson, undefined);
  assert.deepEqual(run[9].expectedJson, { movedReplicas: 5 });
  assert.equal(run[0].text.split('\n').length, 2);
  assert.equal(run[2].text.split('\n').length, 2);
  assert.deepEqual(
    skipped.map((c) => c.line),
    [19],
  );
});

test('a status in a comment above counts only as "(NNN": prose numbers do not', () => {
  const md = [
    '## Using it',
    `${fence}sh`,
    '# Burst 220 partitions, 2/s',
    'curl -s localhost:8080/x',
    '# Validate (200, nothing changes)',
    'curl -s localhost:8080/y',
    'curl -s localhost:8080/z',
    fence,
  ].join('\n');
  assert.deepEqual(
    readmeCommands(md).run.map((c) => c.expectedStatus),
    [null, 200, null],
  );
});

test('splitComment: # inside quotes or words is not a comment', () => {
  assert.deepEqual(splitComment(`curl -d '{"a":"#x"}' "b#c" d#e # yes`), { code: `curl -d '{"a":"#x"}' "b#c" d#e `, comment: '# yes' });
  assert.deepEqual(splitComment('curl x'), { code: 'curl x', comment: null });
});

test('holds: keys named with their values, arrays whole', () => {
  assert.ok(holds({ rates: [], replicas: [], x: 1 }, { rates: [], replicas: [] }));
  assert.ok(!holds({ rates: [{ broker: 1 }], replicas: [] }, { rates: [], replicas: [] }));
  assert.ok(holds({ leader: 2, replicas: [2, 0] }, { leader: 2, replicas: [2, 0] }));
  assert.ok(!holds({ leader: 0, replicas: [0, 2] }, { leader: 2, replicas: [2, 0] }));
  assert.ok(!holds([1, 2, 3], [1, 2]));
  assert.ok(!holds(null, {}));
});

test('problemOf: the named status on the last answer, 2xx elsewhere, exit code, no answer', () => {
  const result = (expectedStatus: number | null, statuses: number[], exitCode: number | null = 0): CommandResult => ({
    command: { line: 1, text: 'curl -s localhost:8080/x', expectedStatus },
    exitCode,
    durationMs: 1,
    statuses,
    stdout: '',
    stderr: '',
  });
  assert.equal(problemOf(result(204, [204])), null);
  assert.equal(problemOf(result(null, [200, 201])), null);
  assert.equal(problemOf(result(null, [200, 207])), null);
  assert.match(problemOf(result(429, [207]))!, /answered 207, the README says 429/);
  assert.match(problemOf(result(null, [422]))!, /422/);
  assert.match(problemOf(result(204, [404, 204]))!, /404/);
  assert.match(problemOf(result(null, []))!, /no HTTP answer/);
  assert.match(problemOf(result(null, [200], 7))!, /exited 7/);
  assert.match(problemOf(result(null, [], null))!, /did not finish/);
  const printing = (stdout: string): CommandResult => ({
    ...result(null, [200]),
    command: { line: 1, text: 'curl -s localhost:8080/x', expectedStatus: null, expectedJson: { rates: [] } },
    stdout,
  });
  assert.equal(problemOf(printing('{"rates":[],"replicas":[]}')), null);
  assert.match(problemOf(printing('{"rates":[{"broker":1}]}'))!, /README shows/);
  assert.match(problemOf(printing('not json'))!, /printed no JSON/);
});
