// What else the machine did while a bench measured: the figures of bench:overhead and bench:scale
// are only comparable with the load they were taken under (issue 32). A window records, from its
// start to its end:
//   - the machine's 1-minute load average (os.loadavg) at both ends, and the share of all CPUs
//     that were busy (from /proc/stat: every process on the machine, ours and others');
//   - the CPU time (user + system, all threads) of this process (process.cpuUsage) and of each
//     child process given by pid (/proc/<pid>/task/<tid>/schedstat: nanoseconds on a CPU, summed
//     over the process's threads; /proc/<pid>/stat counts in 10 ms ticks, too coarse for a
//     window of a few hundred requests);
//   - and from these, what the rest of the machine took ("others": busy CPU seconds that were
//     none of the above), so that a figure says whether it had the CPUs to itself.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Seconds the process `pid` has run on a CPU so far, all its threads; NaN when it is gone or /proc is not there. */
export function processCpuSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    return ns / 1e9;
  } catch {
    return NaN;
  }
}

/** [busy, total] jiffies of all CPUs since boot (/proc/stat's first line); NaNs without /proc. */
function machineJiffies(): [number, number] {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0); // user..steal (guest is inside user)
    const idle = fields[3] + fields[4]; // idle + iowait
    return [total - idle, total];
  } catch {
    return [NaN, NaN];
  }
}

const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

export interface LoadWindow {
  /** Wall seconds of the window. */
  readonly seconds: number;
  /** os.loadavg()[0] at the start and at the end. */
  readonly loadavg: readonly [number, number];
  /** Busy share of all CPUs during the window (0..1), every process of the machine included. */
  readonly machineBusy: number;
  readonly cpus: number;
  /** CPU seconds this process took during the window. */
  readonly ownCpu: number;
  /** CPU seconds each named child took during the window. */
  readonly children: Readonly<Record<string, number>>;
}

/** Starts a window over this process and the named child processes; call the result to end it. */
export function startLoadWindow(children: Readonly<Record<string, number | undefined>> = {}): () => LoadWindow {
  const t0 = process.hrtime.bigint();
  const load0 = loadavg()[0];
  const [busy0, total0] = machineJiffies();
  const own0 = ownCpuSeconds();
  const child0 = Object.fromEntries(
    Object.entries(children).map(([name, pid]) => [name, pid === undefined ? NaN : processCpuSeconds(pid)]),
  );
  return () => {
    const [busy1, total1] = machineJiffies();
    return {
      seconds: Number(process.hrtime.bigint() - t0) / 1e9,
      loadavg: [load0, loadavg()[0]],
      machineBusy: (busy1 - busy0) / Math.max(1, total1 - total0),
      cpus: cpus().length,
      ownCpu: ownCpuSeconds() - own0,
      children: Object.fromEntries(
        Object.entries(children).map(([name, pid]) => [name, pid === undefined ? NaN : processCpuSeconds(pid) - child0[name]]),
      ),
    };
  };
}

/**
 * CPU seconds the rest of the machine took during the window: every busy CPU second (/proc/stat)
 * that was not this process's or a named child's (other benches, builds, tests on a shared
 * machine). Never below 0 (the machine's count is in 10 ms ticks, the processes' in ns).
 */
export function othersCpuSeconds(w: LoadWindow): number {
  const ours = w.ownCpu + Object.values(w.children).reduce((a, b) => a + (Number.isNaN(b) ? 0 : b), 0);
  return Math.max(0, w.machineBusy * w.cpus * w.seconds - ours);
}

/** One line: "load 2.1→2.4, machine 78 % of 2 CPUs busy over 3.2 s; CPU s: bench 1.10, gateway 0.90, others 3.01". */
export function describeLoad(w: LoadWindow): string {
  const parts = [
    `bench ${w.ownCpu.toFixed(2)}`,
    ...Object.entries(w.children).map(([name, s]) => `${name} ${s.toFixed(2)}`),
    `others ${othersCpuSeconds(w).toFixed(2)}`,
  ];
  return `load ${w.loadavg[0].toFixed(1)}→${w.loadavg[1].toFixed(1)}, machine ${(100 * w.machineBusy).toFixed(0)} % of ${w.cpus} CPUs busy over ${w.seconds.toFixed(1)} s; CPU s: ${parts.join(', ')}`;
}
