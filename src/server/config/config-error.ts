/** A configuration problem, naming the key and, when known, where in which file. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";

  constructor(
    readonly key: string,
    readonly problem: string,
    readonly where?: { readonly file: string; readonly line?: number },
  ) {
    super(`${where ? `${where.file}${where.line ? `:${where.line}` : ""}: ` : ""}${key}: ${problem}`);
  }
}
