import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchOptions } from "./bench-options.js";
import type { CpuPinning } from "./cpu-pinning.js";

/** What every measure is given: the options, where processes run, a scratch directory, a log. */
export interface BenchContext {
  readonly options: BenchOptions;
  readonly pinning: CpuPinning;
  /** Scratch space for databases, body files and logs; removed at the end. */
  readonly workDir: string;
  log(line: string): void;
  /** A fresh directory under workDir. */
  freshDir(name: string): string;
}

let counter = 0;

export function createContext(options: BenchOptions, pinning: CpuPinning, workDir: string): BenchContext {
  const started = Date.now();
  return {
    options,
    pinning,
    workDir,
    log: (line) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`),
    freshDir: (name) => {
      const dir = join(workDir, `${String(++counter).padStart(2, "0")}-${name}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
  };
}
