import { readFileSync } from "node:fs";
import type { ProfileFrame } from "./results.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one process.hrtime reads. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock in microseconds (process.hrtime.bigint() / 1000). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Pseudo-frames V8 reports that are not JavaScript functions. */
const IDLE = "(idle)";

/**
 * A short place name: package and file for dependencies, the repo path for
 * our own code. TypeScript run through tsx has no usable line numbers in a
 * profile (V8 does not apply source maps), so .ts files are named without one.
 */
function where(url: string, line: number): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  const short = nm >= 0 ? path.slice(nm + "/node_modules/".length).replace(/\/dist\/(esm|cjs)\//, "/…/") : path.replace(/^.*?\/(src|gen|bench)\//, "$1/");
  return short.endsWith(".ts") ? short : `${short}:${line + 1}`;
}

/** What part of the stack a frame belongs to, for the by-area summary. */
function area(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  if (url.startsWith("node:")) return url.split("/")[0]!.replace(/^node:internal.*/, "node internals");
  const nm = url.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "/node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const m = /\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url) ?? /\/(gen)\//.exec(url);
  return m ? m[1]! : url;
}

/**
 * Self time per function of a V8 .cpuprofile (from node --cpu-prof),
 * largest first, as shares of the busy (non-idle) time; and self time per
 * area (package or source folder). With a window, only samples inside it
 * count, so start-up and shutdown stay out of a profile of the load.
 */
export function topSelfFrames(file: string, limit: number, window?: ProfileWindow): { frames: ProfileFrame[]; byArea: Array<{ area: string; selfPct: number }>; busyMs: number; idleMs: number } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    // A sample's delta is the time since the previous one; charge it to this sample.
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const perFrame = new Map<string, { fn: string; where: string; us: number }>();
  const perArea = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const cf = byId.get(id)!.callFrame;
    if (cf.functionName === IDLE) {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const fn = cf.functionName || "(anonymous)";
    const w = where(cf.url, cf.lineNumber);
    const key = `${fn}@${w}`;
    const entry = perFrame.get(key) ?? { fn, where: w, us: 0 };
    entry.us += us;
    perFrame.set(key, entry);
    const a = area(cf.url, fn);
    perArea.set(a, (perArea.get(a) ?? 0) + us);
  }
  const frames = [...perFrame.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, limit)
    .map((f) => ({ fn: f.fn, where: f.where, selfMs: f.us / 1000, selfPct: (100 * f.us) / busyUs }));
  const byArea = [...perArea.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([a, us]) => ({ area: a, selfPct: (100 * us) / busyUs }));
  return { frames, byArea, busyMs: busyUs / 1000, idleMs: idleUs / 1000 };
}
