// bench/machine-load.ts: the CPU a window counts for this process and for a child is the CPU
// they took during it (a child that spins for a while shows it; an idle one does not), and the
// machine's load is read.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { describeLoad, processCpuSeconds, startLoadWindow } from '../../bench/machine-load.js';

/** A child that spins `ms` of CPU after each line on stdin, and says "done" on stdout. */
function spinner() {
  const code = `process.stdin.on('data', (d) => { const ms = Number(String(d)); const end = Date.now() + ms; while (Date.now() < end); process.stdout.write('done\\n'); });`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const spin = async (ms: number) => {
    proc.stdin.write(`${ms}\n`);
    await once(proc.stdout, 'data');
  };
  return { proc, spin };
}

describe('machine-load', () => {
  it("counts a child's CPU during the window, not before it", { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const { proc, spin } = spinner();
    try {
      await spin(1); // started and answering
      const idle = startLoadWindow({ child: proc.pid });
      await new Promise((r) => setTimeout(r, 100));
      const quiet = idle();
      const busy = startLoadWindow({ child: proc.pid });
      await spin(300);
      const w = busy();
      assert.ok(quiet.children.child < 0.05, `idle child took ${quiet.children.child} s`);
      // On a loaded machine the spin's 300 ms of wall time are fewer on a CPU; never more than the window.
      assert.ok(w.children.child > 0.05 && w.children.child <= w.seconds + 0.01, `busy child took ${w.children.child} s of ${w.seconds} s`);
      assert.ok(w.ownCpu >= 0 && w.ownCpu < w.seconds + 0.05);
      assert.ok(w.machineBusy > 0 && w.machineBusy <= 1, `machine busy ${w.machineBusy}`);
      assert.ok(w.cpus >= 1 && w.loadavg.every((l) => l >= 0));
      assert.match(
        describeLoad(w),
        /^load \d+\.\d→\d+\.\d, machine \d+ % of \d+ CPUs busy over \d+\.\d s; CPU s: bench \d+\.\d\d, child \d+\.\d\d, others \d+\.\d\d$/,
      );
    } finally {
      proc.kill();
    }
  });

  it('a process that is gone has no CPU figure (NaN), not a zero', async () => {
    const { proc } = spinner();
    proc.kill();
    await once(proc, 'exit');
    assert.ok(Number.isNaN(processCpuSeconds(proc.pid!)));
  });
});
