import { readFileSync } from "node:fs";

/** The package's version, from package.json (read when asked: `--version` is rare). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "unknown";
}
