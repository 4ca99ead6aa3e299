import { readFileSync } from "node:fs";

/** The resident set size of a process (VmRSS in /proc/<pid>/status), in MiB. */
export function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) / 1024;
}

/** Samples a process's RSS on a period; `stop()` returns the highest value seen (MiB). */
export interface RssSampler {
  readonly peak: number;
  stop(): number;
}

/** Starts sampling the RSS of `pid` every `everyMs` (and once at once). */
export function sampleRss(pid: number, everyMs = 50): RssSampler {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // The process is gone: the peak so far stands.
    }
  }, everyMs);
  return {
    get peak() {
      return peak;
    },
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
