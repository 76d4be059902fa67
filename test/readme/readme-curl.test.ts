// Issue 31: every curl line of the README's "Using it" part, run in order against `npm start`
// (the gateway on its embedded simulated cluster, started from source as `npm run dev` does, with
// npm start's defaults), answers as printed and leaves topics, placement, throttles and quotas as
// they were. The convention for what runs and what a line must answer: readme-commands.ts.
// README_CURL_FILE=<path> runs another copy instead (e.g. one without a section being written).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { spawnGateway, type GatewayProcess } from '../http/gateway-process.js';
import { demoSnapshot, type DemoSnapshot } from './demo-snapshot.js';
import { readmeCommands } from './readme-commands.js';
import { problemOf, runCommands, type RunOutcome } from './readme-run.js';

const README = new URL('../../README.md', import.meta.url);
/** The whole run: ~2 min on the demo (waits for reassignments, a 60 s deadline, a 15 s stream). */
const RUN_TIMEOUT_MS = 300_000;

let gateway: GatewayProcess;
let base: string;
let bootstrapServers: string[];
let dir: string;
let before_: DemoSnapshot;
let outcome: RunOutcome;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readme-curl-'));
  // npm start's environment: no KAFKA_BOOTSTRAP_SERVERS (the embedded demo), no credentials;
  // the simulator's control port open, as `SIM_CONTROL_PORT=19999 npm start` (on a free port).
  gateway = spawnGateway({ SIM_CONTROL_PORT: '0' });
  base = await gateway.url;
  const control = gateway.logs.find((l) => l.msg === 'embedded simulator control API')?.url;
  assert.equal(typeof control, 'string', 'the control API did not start');
  bootstrapServers = gateway.logs.find((l) => l.msg === 'embedded simulator started')?.bootstrapServers as string[];
  assert.ok(Array.isArray(bootstrapServers), 'the embedded cluster did not say where it is');
  before_ = await demoSnapshot(base, bootstrapServers);
  const { run } = readmeCommands(readFileSync(process.env.README_CURL_FILE ?? README, 'utf8'));
  const addresses = { 'localhost:8080': new URL(base).host, '127.0.0.1:19999': new URL(control as string).host };
  outcome = await runCommands(run, dir, addresses, RUN_TIMEOUT_MS);
});

after(async () => {
  if (gateway && gateway.child.exitCode === null) gateway.child.kill('SIGTERM');
  await gateway?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function describe(r: RunOutcome['results'][number], problem: string): string {
  return `README line ${r.command.line}: ${problem}\n${r.command.text}\n--- stdout\n${r.stdout.slice(0, 2000)}\n--- stderr\n${r.stderr.slice(0, 2000)}`;
}

test('every command runs and answers the status its comment names', () => {
  const failures = outcome.results.flatMap((r) => {
    const p = problemOf(r);
    return p ? [{ r, p }] : [];
  });
  const notRun = failures.filter(({ p }) => p === 'did not finish').slice(1);
  const list = failures
    .filter((f) => !notRun.includes(f))
    .map(({ r, p }) => `  line ${r.command.line}: ${p}`)
    .concat(notRun.length ? [`  (${notRun.length} commands after it did not run)`] : [])
    .join('\n');
  const first = failures[0] && describe(failures[0].r, failures[0].p);
  const shell = outcome.shellErrors.trim() ? `bash: ${outcome.shellErrors.trim().slice(0, 1000)}\n` : '';
  assert.equal(
    failures.length,
    0,
    `${outcome.timedOut ? `timed out after ${RUN_TIMEOUT_MS} ms\n` : ''}${shell}${failures.length} command(s) failed:\n${list}\nthe first:\n${first}`,
  );
  assert.ok(outcome.results.length > 50, `only ${outcome.results.length} commands found in the README`);
  const slowest = [...outcome.results].sort((a, b) => (b.durationMs ?? 0) - (a.durationMs ?? 0)).slice(0, 5);
  console.log(
    `readme commands: ${outcome.results.length}; slowest: ${slowest.map((r) => `line ${r.command.line} ${r.durationMs} ms`).join(', ')}`,
  );
});

test('topics, placement (replicas and log dirs), throttles, configs and quotas are as they were', async () => {
  assert.deepEqual(await demoSnapshot(base, bootstrapServers), before_);
});
