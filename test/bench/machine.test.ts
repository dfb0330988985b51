import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { treeCpuSeconds } from '../../bench/lib/machine.js';

/**
 * treeCpuSeconds is what every CPU figure of the bench and the load trials reads (a PostgreSQL
 * server's CPU: its postmaster's tree). A process that ends during a phase must count once: its
 * CPU moves from its own entry to its parent's children's time.
 */
describe('treeCpuSeconds', () => {
  it('counts a descendant that ended and was reaped once, not twice', () => {
    const before = treeCpuSeconds(process.pid) as number;
    const ownBefore = process.cpuUsage();
    // A child that burns about a second of CPU, prints what it used, and ends.
    const printed = execFileSync(process.execPath, ['-e', `
      const start = process.cpuUsage();
      let x = 0;
      while ((process.cpuUsage(start).user + process.cpuUsage(start).system) < 1e6) x += Math.sqrt(x + 1);
      const used = process.cpuUsage();
      console.log((used.user + used.system) / 1e6);
    `], { encoding: 'utf8' });
    const own = process.cpuUsage(ownBefore);
    const child = Number(printed.trim());
    const counted = (treeCpuSeconds(process.pid) as number) - before;
    const ours = (own.user + own.system) / 1e6;
    assert.ok(child >= 1, `the child used ${child} s`);
    // Its start (loading Node) is not in its own reading: a quarter of a second allowed for it and the ticks' rounding.
    assert.ok(counted >= child - 0.05, `counted ${counted} s, at least the child's ${child} s`);
    assert.ok(counted <= child + ours + 0.25, `counted ${counted} s, at most the child's ${child} s and this process's ${ours} s`);
  });
});
