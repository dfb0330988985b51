import fs from 'node:fs';
import os from 'node:os';
import type { Queryable } from '../../src/platform/db/pool.js';

/**
 * How much of the machine's CPU went to processes other than the benchmark's own (this process,
 * the service, and the PostgreSQL server with all its children) during a phase. On a small
 * machine anything else running — a test suite, a build — skews the figures; the scenario prints
 * a warning when the share is noticeable. Linux only (/proc); elsewhere the share is unknown.
 */
const USER_HZ = 100;

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** pid → [ppid, utime + stime in ticks] for every process visible in /proc. */
function processTable(): Map<number, { ppid: number; ticks: number }> {
  const table = new Map<number, { ppid: number; ticks: number }>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime + stime, and cutime + cstime: the CPU of its children that have ended and been waited for.
    table.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) });
  }
  return table;
}

/** Busy ticks of all CPUs together (everything but idle and iowait). */
function machineBusyTicks(): number | undefined {
  const line = readProc('/proc/stat')?.split('\n')[0];
  if (!line?.startsWith('cpu ')) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

/**
 * CPU seconds used so far by a process and all its descendants, including descendants that have
 * already exited and been reaped (the kernel adds those to their parent's cutime/cstime). For a
 * PostgreSQL postmaster: the server's whole CPU, backends included. Undefined without /proc.
 */
export function treeCpuSeconds(root: number): number | undefined {
  const table = processTable();
  if (!table.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, entry] of table) {
    const list = children.get(entry.ppid);
    if (list) list.push(pid);
    else children.set(entry.ppid, [pid]);
  }
  // Each process's ticks hold its reaped children's (processTable), the root's included: adding the
  // root's cutime and cstime again counted every backend that ended during a phase twice, its whole
  // life's CPU landing in that phase (196 ms of PostgreSQL per 1,000 items re-sent at 1,000,000
  // products, six times what two cores can give).
  let ticks = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    ticks += table.get(pid)?.ticks ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks / USER_HZ;
}

/** The parent of a process (for a PostgreSQL backend: the postmaster), when it is visible here. */
export function parentPid(pid: number): number | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** True when `pid` is a postgres process on this machine (a remote server's pid means nothing here). */
export function isLocalPostgres(pid: number): boolean {
  return (readProc(`/proc/${pid}/cmdline`) ?? '').includes('postgres');
}

/**
 * The postmaster of the PostgreSQL server behind `db`, when that server runs on this machine: the
 * root of its process tree, for its CPU time (`treeCpuSeconds`) and as one of the benchmark's own
 * roots (`ForeignCpuMonitor.addRoot`). Undefined for a remote server or without /proc.
 */
export async function localPostmaster(db: Queryable): Promise<number | undefined> {
  const { rows: [backend] } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const parent = backend ? parentPid(backend.pid) : undefined;
  return parent !== undefined && isLocalPostgres(parent) ? parent : undefined;
}

/** Above this share of the machine's CPU used by other processes during a timed phase, the figures are flagged. */
export const FOREIGN_CPU_WARNING = 0.1;

/** The report's line on other processes' CPU use (`ForeignCpuMonitor`) during `phases`, with a warning when it passed FOREIGN_CPU_WARNING. */
export function foreignCpuNote(max: number | undefined, phases: string): string {
  if (max === undefined) return `other processes' CPU use during ${phases}: unknown (no /proc)`;
  return `other processes used at most ${(max * 100).toFixed(1)} % of the machine's CPU during ${phases}` +
    (max > FOREIGN_CPU_WARNING ? ' — WARNING: the machine was busy, the figures are skewed; run again on a quiet machine' : '');
}

interface Snapshot { busy: number; ours: Map<number, number> }

export class ForeignCpuMonitor {
  /** Roots whose whole process trees count as the benchmark's own. */
  private readonly roots = new Set<number>([process.pid]);

  addRoot(pid: number | undefined): void {
    if (pid !== undefined && pid > 0) this.roots.add(pid);
  }

  private snapshot(): Snapshot | undefined {
    const busy = machineBusyTicks();
    if (busy === undefined) return undefined;
    const table = processTable();
    const ours = new Map<number, number>();
    const isOurs = (pid: number, depth = 0): boolean => {
      if (this.roots.has(pid)) return true;
      const entry = table.get(pid);
      return entry !== undefined && entry.ppid > 1 && depth < 16 && isOurs(entry.ppid, depth + 1);
    };
    for (const [pid, entry] of table) if (isOurs(pid)) ours.set(pid, entry.ticks);
    return { busy, ours };
  }

  /** Starts measuring; the returned function gives the foreign share of total CPU capacity (0–1). */
  start(): () => number | undefined {
    const before = this.snapshot();
    const started = process.hrtime.bigint();
    return () => {
      const after = this.snapshot();
      if (!before || !after) return undefined;
      let oursTicks = 0;
      for (const [pid, ticks] of after.ours) oursTicks += ticks - (before.ours.get(pid) ?? 0);
      // A process of ours that ended meanwhile is in its parent's children's time, whole: only what
      // it used after the first reading counts.
      for (const [pid, ticks] of before.ours) if (!after.ours.has(pid)) oursTicks -= ticks;
      const elapsedTicks = (Number(process.hrtime.bigint() - started) / 1e9) * USER_HZ * os.cpus().length;
      if (elapsedTicks <= 0) return undefined;
      return Math.max(0, Math.min(1, (after.busy - before.busy - oursTicks) / elapsedTicks));
    };
  }
}
