// The gateway as a child process of a bench, pointed at a simulator: its RSS and event loop are
// its own. By default it runs as `npm start` and the Docker image run it: bin/gateway.sh, the
// compiled dist/main.js with the memory settings shipped there (the bench scripts build first).
// Shared by bench/scale.ts and bench/start-answers.ts.
//   SCALE_NODE_FLAGS="<flags>"     node flags for the gateway instead of the shipped ones
//                                  (GATEWAY_NODE_FLAGS; "" = Node's and V8's defaults)
//   MALLOC_MMAP_THRESHOLD_=<n>     passed on (bin/gateway.sh sets 65536 when it is unset; MALLOC_ARENA_MAX likewise, 2)
//   SCALE_FROM_SOURCE=1            src/main.ts under tsx instead (`npm run dev`; no build needed,
//                                  Node's defaults plus SCALE_NODE_FLAGS, tsx's loader thread)
//   SCALE_PROFILE=<dir>            a CPU profile of the gateway (written when it exits)
//   SCALE_MEMORY_LIMIT_MIB=<n>     the gateway in a memory cgroup of n MiB (as root), as a pod
//   SCALE_GATEWAY_OUT=<file>       the gateway's stdout and stderr also go there
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Simulator } from '../src/sim/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `opts.env` adds to (or overrides) the gateway's environment; `opts.fromSource` as SCALE_FROM_SOURCE=1. */
export async function startGateway(
  sim: Simulator,
  opts: { env?: Record<string, string>; fromSource?: boolean } = {},
): Promise<{ proc: ChildProcess; url: string }> {
  // SCALE_PROFILE=<dir>: a CPU profile of the gateway (written when it exits), by NODE_OPTIONS
  // so that it adds to the shipped flags.
  const prof = process.env.SCALE_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.SCALE_PROFILE}` : undefined;
  // SCALE_NODE_FLAGS: node flags instead of the shipped ones (e.g. GC settings to compare).
  const flags = process.env.SCALE_NODE_FLAGS;
  // SCALE_MEMORY_LIMIT_MIB=<n>: the gateway runs in a memory cgroup of n MiB (cgroup v1 or v2,
  // as root), as a container with that limit would: Node sizes V8's heap from the cgroup's
  // limit, as it does in a Kubernetes pod (deploy/kubernetes/deployment.yaml).
  const cgroup = process.env.SCALE_MEMORY_LIMIT_MIB ? memoryCgroup(Number(process.env.SCALE_MEMORY_LIMIT_MIB)) : null;
  const fromSource = opts.fromSource ?? Boolean(process.env.SCALE_FROM_SOURCE);
  if (!fromSource && !existsSync(`${ROOT}dist/main.js`))
    throw new Error('the bench runs dist/main.js as `npm start` does: run `npm run build` first (or SCALE_FROM_SOURCE=1)');
  // bin/gateway.sh execs node: the child's pid is the gateway's (its RSS, its cgroup).
  const command = fromSource
    ? [process.execPath, ...(flags ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'src/main.ts']
    : ['/bin/sh', `${ROOT}bin/gateway.sh`];
  const proc = spawn(
    cgroup ? '/bin/sh' : command[0],
    cgroup ? ['-c', 'echo $$ > "$0" && exec "$@"', cgroup, ...command] : command.slice(1),
    {
      cwd: ROOT,
      env: {
        ...process.env,
        // bin/gateway.sh runs the `node` on PATH: this one.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        ...(flags !== undefined && { GATEWAY_NODE_FLAGS: flags }),
        ...(prof && { NODE_OPTIONS: [process.env.NODE_OPTIONS, prof].filter(Boolean).join(' ') }),
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        GATEWAY_AUTH: 'none',
        PORT: '0',
        HOST: '127.0.0.1',
        RECONCILE_INTERVAL_MS: '2000',
        LOG_LEVEL: 'warn',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    // SCALE_GATEWAY_OUT=<file>: the gateway's stdout and stderr go there too (e.g. with --trace-gc).
    const tee = process.env.SCALE_GATEWAY_OUT;
    if (tee) for (const s of [proc.stdout, proc.stderr]) s.on('data', (c: Buffer) => appendFileSync(tee, c));
    proc.on('exit', (code) => reject(new Error(`gateway exited ${code}:\n${out}`)));
  });
  // A gateway that dies during the run (e.g. out of heap in a small memory cgroup) ends the
  // bench with its last output, instead of leaving it waiting on requests nobody answers.
  const died = (code: number | null, signal: string | null) => {
    process.stderr.write(`\nthe gateway exited during the run (${signal ?? `code ${code}`}); its last output:\n${out.slice(-4000)}\n`);
    process.exit(1);
  };
  proc.on('exit', died);
  // A deliberate stop (SIGTERM from the bench) is not a death.
  const kill = proc.kill.bind(proc);
  proc.kill = (signal?: NodeJS.Signals | number) => {
    proc.off('exit', died);
    return kill(signal);
  };
  return { proc, url };
}

/** A memory cgroup limited to `mib` MiB (v2 if mounted so, else v1); returns its cgroup.procs path. */
function memoryCgroup(mib: number): string {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const dir = v2 ? `/sys/fs/cgroup/bench-scale-${process.pid}` : `/sys/fs/cgroup/memory/bench-scale-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${v2 ? 'memory.max' : 'memory.limit_in_bytes'}`, String(mib * 2 ** 20));
  process.on('exit', () => {
    try {
      rmdirSync(dir);
    } catch {
      // still has a process in it, or gone: the directory is the only thing left behind
    }
  });
  return `${dir}/cgroup.procs`;
}
