import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux; /proc reports CPU time in these ticks.

/** Resident set size of a process now, in bytes (Linux /proc), or NaN when unreadable. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Seconds of two CPU time fields of /proc/<pid>/stat added (numbered as proc(5) numbers them), or NaN when unreadable. */
function statSeconds(pid: number, a: number, b: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[a - 3]) + Number(fields[b - 3])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds (utime + stime) a process has used so far, or NaN when unreadable. */
export function cpuSeconds(pid: number): number {
  return statSeconds(pid, 14, 15);
}

/**
 * CPU seconds a process's children have used that it has waited for
 * (cutime + cstime), or NaN: a server that forks a process per connection
 * (PostgreSQL) counts there what its exited backends used.
 */
export function reapedChildrenCpuSeconds(pid: number): number {
  return statSeconds(pid, 16, 17);
}

/** Measures a process's CPU use over an interval, as a share of one core. */
export class CpuMeter {
  private readonly startCpu: number;
  private readonly startAt = process.hrtime.bigint();
  constructor(private readonly pid: number) {
    this.startCpu = cpuSeconds(pid);
  }
  /** Share of one core used since construction: 1.0 = one core busy all the time. */
  share(): number {
    const wall = Number(process.hrtime.bigint() - this.startAt) / 1e9;
    return (cpuSeconds(this.pid) - this.startCpu) / wall;
  }
}

/** CPU seconds the whole machine has spent busy (all cores, everything but idle and iowait). */
export function machineBusySeconds(): number {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * Measures how busy the machine was over an interval, in cores. Other
 * work on a shared machine shows up here: busy minus the server's and the
 * loader's own share is CPU someone else took during the measure.
 */
export class MachineMeter {
  private readonly startBusy = machineBusySeconds();
  private readonly startAt = process.hrtime.bigint();
  /** Cores busy on average since construction (2.0 = both of two cores). */
  cores(): number {
    const wall = Number(process.hrtime.bigint() - this.startAt) / 1e9;
    return (machineBusySeconds() - this.startBusy) / wall;
  }
}
