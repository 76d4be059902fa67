// bin/gateway.sh, the launcher `npm start` and the Docker image run: the node flags and the
// glibc setting it ships reach the gateway's process (exec'd: the same pid, as PID 1 in the
// image), GATEWAY_NODE_FLAGS and MALLOC_MMAP_THRESHOLD_ override them, arguments and the
// working directory pass through, and this Node accepts the flags and applies them (a V8 flag
// that a Node upgrade drops would make node refuse to start: this test fails first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = join(ROOT, 'bin/gateway.sh');
/** The flags the launcher ships, read from it (`FLAGS_IN_PROCESS="<flags>"`, and with the worker thread). */
const shippedFlags = (name: string) =>
  new RegExp(`^${name}="([^"]*)"$`, 'm').exec(readFileSync(LAUNCHER, 'utf8'))?.[1]?.split(' ').filter(Boolean) ?? [];
const SHIPPED = shippedFlags('FLAGS_IN_PROCESS');
const SHIPPED_WORKER_THREAD = shippedFlags('FLAGS_WORKER_THREAD');

interface Seen {
  pid: number;
  execArgv: string[];
  argv: string[];
  malloc: string | undefined;
  arenas: string | undefined;
  cwd: string;
  /** GATEWAY_WORKER_THREAD and GATEWAY_WORKER_THREAD_REASON as the gateway sees them. */
  worker: string | undefined;
  reason: string | undefined;
}

/** Runs a copy of the launcher whose dist/main.js reports what it was started with. */
async function launch(
  env: Record<string, string | undefined>,
  args: string[] = [],
  /** The source of a dist/worker/size-probe.js (GATEWAY_WORKER_THREAD=auto's decision); none by default. */
  probe?: string,
): Promise<{ seen: Seen; childPid: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'launcher-'));
  try {
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    cpSync(LAUNCHER, join(dir, 'bin/gateway.sh'));
    writeFileSync(
      join(dir, 'dist/main.js'),
      'const e = process.env; process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2), malloc: e.MALLOC_MMAP_THRESHOLD_, arenas: e.MALLOC_ARENA_MAX, cwd: process.cwd(), worker: e.GATEWAY_WORKER_THREAD, reason: e.GATEWAY_WORKER_THREAD_REASON }));',
    );
    if (probe !== undefined) {
      mkdirSync(join(dir, 'dist/worker'));
      writeFileSync(join(dir, 'dist/worker/size-probe.js'), probe);
    }
    const base: Record<string, string | undefined> = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    delete base.GATEWAY_NODE_FLAGS;
    delete base.GATEWAY_WORKER_THREAD;
    delete base.GATEWAY_WORKER_THREAD_REASON;
    delete base.MALLOC_MMAP_THRESHOLD_;
    delete base.MALLOC_ARENA_MAX;
    const child = spawn('/bin/sh', [join(dir, 'bin/gateway.sh'), ...args], {
      cwd: tmpdir(),
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, err);
    return { seen: JSON.parse(out) as Seen, childPid: child.pid! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the launcher ships a heap growth bound and a smaller young generation', () => {
  assert.ok(
    SHIPPED.some((f) => /^--heap-growing-percent=\d+$/.test(f)),
    SHIPPED.join(' '),
  );
  assert.ok(
    SHIPPED.some((f) => /^--max-semi-space-size=\d+$/.test(f)),
    SHIPPED.join(' '),
  );
});

test('the gateway process gets the shipped flags and glibc setting; exec keeps its pid; arguments and cwd pass through', async () => {
  const { seen, childPid } = await launch({}, ['--some-arg', 'x y']);
  assert.deepEqual(seen.execArgv, SHIPPED);
  assert.equal(seen.malloc, '65536');
  assert.equal(seen.arenas, '2');
  assert.equal(seen.pid, childPid, 'node replaced the shell (exec): signals reach the gateway');
  assert.deepEqual(seen.argv, ['--some-arg', 'x y']);
  assert.equal(seen.cwd, tmpdir());
});

test('with the worker thread on, the HTTP thread gets the smaller young generation; off, or auto without an answer from the probe, the in-process flags', async () => {
  assert.ok(
    SHIPPED_WORKER_THREAD.some((f) => /^--max-semi-space-size=\d+$/.test(f)),
    SHIPPED_WORKER_THREAD.join(' '),
  );
  assert.notDeepEqual(SHIPPED_WORKER_THREAD, SHIPPED);
  for (const on of ['on', 'ON', 'true', '1'])
    assert.deepEqual((await launch({ GATEWAY_WORKER_THREAD: on })).seen.execArgv, SHIPPED_WORKER_THREAD, on);
  for (const off of ['off', 'false', '0', '', 'auto'])
    assert.deepEqual((await launch({ GATEWAY_WORKER_THREAD: off })).seen.execArgv, SHIPPED, off);
  const own = await launch({ GATEWAY_WORKER_THREAD: 'on', GATEWAY_NODE_FLAGS: '--stack-trace-limit=20' });
  assert.deepEqual(own.seen.execArgv, ['--stack-trace-limit=20'], 'GATEWAY_NODE_FLAGS still replaces them');
});

test('auto (the default): the size probe decides before node starts, and the gateway gets its choice and reason', async () => {
  const say = (line: string) => `process.stdout.write(${JSON.stringify(line + '\n')});`;
  const on = await launch({}, [], say('on auto: the cluster has 200,000 partitions (at least 50,000)'));
  assert.deepEqual(on.seen.execArgv, SHIPPED_WORKER_THREAD);
  assert.equal(on.seen.worker, 'on');
  assert.equal(on.seen.reason, 'auto: the cluster has 200,000 partitions (at least 50,000)');
  const off = await launch({ GATEWAY_WORKER_THREAD: 'auto' }, [], say('off auto: the cluster has 20,000 partitions (fewer than 50,000)'));
  assert.deepEqual(off.seen.execArgv, SHIPPED);
  assert.equal(off.seen.worker, 'off');
  assert.equal(off.seen.reason, 'auto: the cluster has 20,000 partitions (fewer than 50,000)');
  // A probe that cannot decide (Kafka not answering, a bad setting): the in-process flags, and
  // the gateway decides itself (or reports the bad setting).
  for (const probe of ['process.exit(1);', say('maybe'), undefined]) {
    const unsure = await launch({ GATEWAY_WORKER_THREAD: 'AUTO' }, [], probe);
    assert.deepEqual(unsure.seen.execArgv, SHIPPED, String(probe));
    assert.equal(unsure.seen.worker, 'AUTO', String(probe));
    assert.equal(unsure.seen.reason, undefined);
  }
  // on and off never run the probe.
  const never = say('on auto: never');
  assert.equal((await launch({ GATEWAY_WORKER_THREAD: 'off' }, [], never)).seen.reason, undefined);
  assert.equal((await launch({ GATEWAY_WORKER_THREAD: 'on' }, [], never)).seen.reason, undefined);
});

test('GATEWAY_NODE_FLAGS replaces the flags (empty: none); a MALLOC_MMAP_THRESHOLD_ or MALLOC_ARENA_MAX already set is kept', async () => {
  const none = await launch({ GATEWAY_NODE_FLAGS: '', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '8' });
  assert.deepEqual(none.seen.execArgv, []);
  assert.equal(none.seen.malloc, '131072');
  assert.equal(none.seen.arenas, '8');
  const own = await launch({ GATEWAY_NODE_FLAGS: '--max-old-space-size=700 --stack-trace-limit=20' });
  assert.deepEqual(own.seen.execArgv, ['--max-old-space-size=700', '--stack-trace-limit=20']);
});

test('this Node accepts the shipped flags and applies the young generation size', () => {
  const semi = Number(SHIPPED.find((f) => f.startsWith('--max-semi-space-size='))!.split('=')[1]);
  // The new space is two semi-spaces: allocate until it has grown to its maximum.
  const script = `const v8 = require('node:v8'); const keep = []; for (let i = 0; i < 2e6; i++) { const o = { i, a: [i] }; if (i % 8 === 0) keep.push(o); }
    process.stdout.write(String(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));`;
  const run = (flags: string[]) => spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  const shipped = run(SHIPPED);
  assert.equal(shipped.status, 0, shipped.stderr);
  const withWorker = run(SHIPPED_WORKER_THREAD);
  assert.equal(withWorker.status, 0, withWorker.stderr);
  const defaults = run([]);
  assert.equal(defaults.status, 0, defaults.stderr);
  assert.ok(Number(shipped.stdout) <= 2 * semi * 2 ** 20, `new space ${shipped.stdout} bytes with ${SHIPPED.join(' ')}`);
  assert.ok(
    Number(defaults.stdout) > Number(shipped.stdout),
    `Node's default new space (${defaults.stdout}) is larger than the shipped one (${shipped.stdout})`,
  );
  // An unknown V8 flag is refused at startup: the check above would catch a dropped one.
  assert.notEqual(run(['--no-such-v8-flag-xyz']).status, 0);
});

test('npm start and the Docker image both run the launcher', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.start, /sh bin\/gateway\.sh$/);
  assert.match(pkg.scripts.start, /^npm run build/);
  const cmd = /^CMD (.*)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  assert.deepEqual(JSON.parse(cmd ?? 'null'), ['/bin/sh', 'bin/gateway.sh']);
});
