import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, join } from "node:path";
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
 * profile (V8 does not apply source maps), so .ts files are named without
 * one, unless the line came from a source map (`mapped`).
 */
function where(url: string, line: number, mapped = false): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  const short = nm >= 0 ? path.slice(nm + "/node_modules/".length).replace(/\/dist\/(esm|cjs)\//, "/…/") : path.replace(/^.*?\/(src|gen|bench)\//, "$1/");
  return short.endsWith(".ts") && !mapped ? short : `${short}:${line + 1}`;
}

type CallFrame = ProfileNode["callFrame"];

/**
 * Frames of a compiled file (npm start runs src/ bundled into .build/)
 * mapped back to the TypeScript they came from, through the file's source
 * map when a copy of it lies beside the profile (servers-under-test.ts
 * keeps one); other frames pass as they are.
 */
class FrameSources {
  private readonly maps = new Map<string, SourceMap | undefined>();

  constructor(private readonly profileDir: string) {}

  resolve(cf: CallFrame): { url: string; line: number; mapped: boolean } {
    const map = cf.url.includes("/.build/") ? this.mapOf(cf.url) : undefined;
    const entry = map?.findEntry(cf.lineNumber, cf.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (!entry?.originalSource) return { url: cf.url, line: cf.lineNumber, mapped: false };
    return { url: entry.originalSource, line: entry.originalLine ?? 0, mapped: true };
  }

  private mapOf(url: string): SourceMap | undefined {
    if (this.maps.has(url)) return this.maps.get(url);
    const file = join(this.profileDir, `${basename(url)}.map`);
    let map: SourceMap | undefined;
    if (existsSync(file)) {
      // Sources are named relative to the compiled file (../src/...): where() and area() read only the src/ tail.
      map = new SourceMap(JSON.parse(readFileSync(file, "utf8")) as ConstructorParameters<typeof SourceMap>[0]);
    }
    this.maps.set(url, map);
    return map;
  }
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
  const sources = new FrameSources(dirname(file));
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
    const source = sources.resolve(cf);
    const w = where(source.url, source.line, source.mapped);
    const key = `${fn}@${w}`;
    const entry = perFrame.get(key) ?? { fn, where: w, us: 0 };
    entry.us += us;
    perFrame.set(key, entry);
    const a = area(source.url, fn);
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
