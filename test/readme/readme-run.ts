// Runs the README's demo commands (readme-commands.ts) in order with bash against a gateway, and
// records each command's exit code, output and the status of every HTTP answer it got.
//
// Each command runs in one bash (so `ID=$(...)` carries to the commands after it), with
// `pipefail`; the first command that exits non-zero stops the run (set -e per command). curl is a
// shell function that adds `-D <file>` (the answer's headers), so a command's statuses are
// recorded whatever it prints and however it pipes; `localhost:8080` is replaced by the gateway's
// address. Nothing here waits a fixed time: waiting steps are the README's own loops.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadmeCommand } from './readme-commands.js';

export interface CommandResult {
  command: ReadmeCommand;
  /** null: the run stopped (or timed out) before this command finished. */
  exitCode: number | null;
  durationMs: number | null;
  statuses: number[];
  stdout: string;
  stderr: string;
}

export interface RunOutcome {
  results: CommandResult[];
  timedOut: boolean;
  /** What bash itself printed (a syntax error such as `<id>` in a URL stops the run there). */
  shellErrors: string;
}

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** `addresses`: each README address (localhost:8080, ...) -> where it runs in the test. */
export function buildScript(commands: ReadmeCommand[], dir: string, addresses: Record<string, string>): string {
  const lines = [
    'set -o pipefail',
    `cd ${q(dir)}`,
    // `date +%s%N`.BASHPID: ordered by time, unique across the subshells of a pipeline.
    'curl() { command curl -D "$README_HEADERS/$(date +%s%N).$BASHPID" "$@"; }',
  ];
  commands.forEach((c, i) => {
    const text = Object.entries(addresses).reduce((t, [from, to]) => t.replaceAll(from, to), c.text);
    // A stream followed for a bounded time (`curl -N --max-time 15 .../events`) ends with curl's
    // timeout, exit 28: what the reader sees too, not a failure.
    const bounded = /(^|\s)(--max-time|-m)\s/.test(c.text) ? '[ $rc -eq 28 ] && rc=0; ' : '';
    lines.push(
      `export README_HEADERS=${q(join(dir, `c${i}`))}`,
      `mkdir -p "$README_HEADERS"; t0=$(date +%s%N)`,
      `{`,
      text,
      `} > ${q(join(dir, `c${i}.out`))} 2> ${q(join(dir, `c${i}.err`))}`,
      `rc=$?; ${bounded}echo "${i} $rc $((($(date +%s%N) - t0) / 1000000))" >> ${q(join(dir, 'exit-codes'))}; [ $rc -eq 0 ] || exit 1`,
    );
  });
  return lines.join('\n') + '\n';
}

/** The status of the last response in a `-D` header file (redirects and 100s write several). */
function statusOf(headers: string): number {
  const all = [...headers.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
  return all.length ? Number(all.at(-1)![1]) : 0;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export async function runCommands(
  commands: ReadmeCommand[],
  dir: string,
  addresses: Record<string, string>,
  timeoutMs: number,
): Promise<RunOutcome> {
  mkdirSync(dir, { recursive: true });
  const scriptPath = join(dir, 'readme.sh');
  writeFileSync(scriptPath, buildScript(commands, dir, addresses));
  // Own process group: background helpers a README block starts (`... &`) end with the run.
  const shellErrors = openSync(join(dir, 'bash.err'), 'w');
  const child = spawn('bash', [scriptPath], {
    stdio: ['ignore', 'ignore', shellErrors],
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: dir, LC_ALL: 'C.UTF-8' },
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, timeoutMs);
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  clearTimeout(timer);
  closeSync(shellErrors);
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    /* nothing left in the group */
  }
  const ended = new Map(
    read(join(dir, 'exit-codes'))
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [i, rc, ms] = l.split(' ').map(Number) as [number, number, number];
        return [i, { rc, ms }] as const;
      }),
  );
  const results = commands.map((command, i): CommandResult => {
    let statuses: number[] = [];
    try {
      statuses = readdirSync(join(dir, `c${i}`))
        .sort((a, b) => {
          const [ta, tb] = [BigInt(a.split('.')[0]), BigInt(b.split('.')[0])];
          return ta < tb ? -1 : ta > tb ? 1 : 0;
        })
        .map((f) => statusOf(read(join(dir, `c${i}`, f))));
    } catch {
      /* never started */
    }
    return {
      command,
      exitCode: ended.get(i)?.rc ?? null,
      durationMs: ended.get(i)?.ms ?? null,
      statuses,
      stdout: read(join(dir, `c${i}.out`)),
      stderr: read(join(dir, `c${i}.err`)),
    };
  });
  return { results, timedOut, shellErrors: read(join(dir, 'bash.err')) };
}

/** What is wrong with one command's result, or null: it exited 0, its last answer has the status
 * the README names, every other answer is 2xx. */
export function problemOf(r: CommandResult): string | null {
  if (r.exitCode === null) return 'did not finish';
  if (r.exitCode !== 0) return `exited ${r.exitCode}`;
  const expected = r.command.expectedStatus;
  const isCurl = /\bcurl\s/.test(r.command.text);
  if (isCurl && r.statuses.length === 0) return 'no HTTP answer recorded';
  const last = r.statuses.at(-1);
  const others = expected === null ? r.statuses : r.statuses.slice(0, -1);
  if (expected !== null && last !== expected) return `answered ${last}, the README says ${expected}`;
  const bad = others.filter((s) => s < 200 || s > 299);
  if (bad.length > 0) return `answered ${bad.join(', ')} (no status named: 2xx expected)`;
  if (r.command.expectedJson !== undefined) {
    let printed: unknown;
    try {
      printed = JSON.parse(r.stdout);
    } catch {
      return `printed no JSON; the README shows ${JSON.stringify(r.command.expectedJson)}`;
    }
    if (!holds(printed, r.command.expectedJson))
      return `printed ${r.stdout.trim().slice(0, 300)}; the README shows ${JSON.stringify(r.command.expectedJson)}`;
  }
  return null;
}

/** `actual` has every key of `expected` with that value; arrays and scalars are compared whole. */
export function holds(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => holds(actual[i], e));
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => holds((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, expected);
}
