/**
 * A problem with an agent's options, naming the key (e.g. "args[1]"), so
 * that a config loader can point at the line that holds it.
 */
export class AgentOptionsError extends Error {
  override readonly name = "AgentOptionsError";

  constructor(
    readonly key: string,
    readonly problem: string,
    /** The file the options came from, when they came from one. */
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ""}${key}: ${problem}`);
  }
}

/** Reads one agent's options object, key by key, refusing unknown keys. */
export class OptionsReader {
  private readonly o: Record<string, unknown>;

  constructor(
    raw: unknown,
    private readonly prefix: string,
    known: readonly string[],
  ) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new AgentOptionsError(prefix || "options", "must be a mapping");
    this.o = raw as Record<string, unknown>;
    for (const k of Object.keys(this.o)) if (!known.includes(k)) this.fail(k, `unknown key (expected one of ${known.join(", ")})`);
  }

  fail(key: string, problem: string): never {
    throw new AgentOptionsError(this.prefix ? `${this.prefix}.${key}` : key, problem);
  }

  /** The raw value of a key. */
  raw(key: string): unknown {
    return this.o[key];
  }

  has(key: string): boolean {
    return this.o[key] !== undefined;
  }

  string(key: string, pattern?: RegExp, hint?: string): string {
    const v = this.o[key];
    if (typeof v !== "string" || v === "") this.fail(key, "must be a non-empty string");
    if (pattern && !pattern.test(v)) this.fail(key, hint ?? `must match ${pattern}`);
    return v;
  }

  optString(key: string, pattern?: RegExp, hint?: string): string | undefined {
    return this.o[key] === undefined ? undefined : this.string(key, pattern, hint);
  }

  strings(key: string, pattern?: RegExp, hint?: string): string[] | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) this.fail(key, "must be a list of strings");
    return v.map((x, i) => {
      if (typeof x !== "string") this.fail(`${key}[${i}]`, "must be a string");
      if (pattern && !pattern.test(x)) this.fail(`${key}[${i}]`, hint ?? `must match ${pattern}`);
      return x;
    });
  }

  int(key: string, min: number, max: number): number | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) this.fail(key, `must be a whole number from ${min} to ${max}`);
    return v;
  }

  bool(key: string): boolean | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") this.fail(key, "must be true or false");
    return v;
  }
}
