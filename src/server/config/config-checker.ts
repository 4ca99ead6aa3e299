import { ConfigError } from "./config-error.js";
import type { ConfigSource } from "./read-config-file.js";

/** A key path in the config file: ["agents", 2, "options"]. */
export type Path = Array<string | number>;

/** Checks values of a parsed file against the HubConfig shape, naming keys and lines. */
export class Checker {
  constructor(private readonly source: ConfigSource | undefined) {}

  fail(path: Path, problem: string): never {
    const key = path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    throw new ConfigError(key, problem, this.source ? { file: this.source.file, line: this.source.lineOf(path) } : undefined);
  }

  object(v: unknown, path: Path): Record<string, unknown> {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, "must be a mapping");
    return v as Record<string, unknown>;
  }

  known(o: Record<string, unknown>, path: Path, keys: readonly string[]): void {
    for (const k of Object.keys(o)) if (!keys.includes(k)) this.fail([...path, k], `unknown key (expected one of ${keys.join(", ")})`);
  }

  string(v: unknown, path: Path, pattern?: RegExp, hint?: string): string {
    if (typeof v !== "string" || v === "") this.fail(path, "must be a non-empty string");
    if (pattern && !pattern.test(v)) this.fail(path, hint ?? `must match ${pattern}`);
    return v;
  }

  optString(v: unknown, path: Path, pattern?: RegExp, hint?: string): string | undefined {
    return v === undefined ? undefined : this.string(v, path, pattern, hint);
  }

  int(v: unknown, path: Path, min: number, max: number): number {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) this.fail(path, `must be a whole number from ${min} to ${max}`);
    return v;
  }

  bool(v: unknown, path: Path): boolean {
    if (typeof v !== "boolean") this.fail(path, "must be true or false");
    return v;
  }

  strings(v: unknown, path: Path, pattern?: RegExp, hint?: string): string[] {
    if (!Array.isArray(v)) this.fail(path, "must be a list");
    return v.map((x, i) => this.string(x, [...path, i], pattern, hint));
  }

  /**
   * A setting from the first source that has it: the flag, the variable,
   * the file. `fail` names that source (the flag, the variable, or the key
   * and its line), so a bad value is reported where it was written.
   */
  pick(flag: string, cli: string | undefined, env: NodeJS.ProcessEnv, envName: string, file: unknown, path: Path): Picked | undefined {
    if (cli !== undefined) return { value: cli, fail: (problem) => configError(flag, problem) };
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, fail: (problem) => configError(envName, problem) };
    const fromFile = this.optString(file, path);
    return fromFile === undefined ? undefined : { value: fromFile, fail: (problem) => this.fail(path, problem) };
  }
}

/** A setting's value and a way to report a problem with it at its source. */
export interface Picked {
  readonly value: string;
  fail(problem: string): never;
}

export function configError(key: string, problem: string): never {
  throw new ConfigError(key, problem);
}

