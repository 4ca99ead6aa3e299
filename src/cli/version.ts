import { readFileSync } from "node:fs";

/**
 * The package's version, from its package.json (read when asked: `--version`
 * is rare). Found by walking up from this module, which sits at another depth
 * in the sources (src/cli) than in the compiled package (dist/src/cli).
 */
export function packageVersion(): string {
  for (let dir = new URL(".", import.meta.url); ; dir = new URL("..", dir)) {
    const pkg = readPackage(new URL("package.json", dir));
    if (pkg?.name === "a2a-hub") return pkg.version ?? "unknown";
    if (dir.pathname === "/") return "unknown";
  }
}

function readPackage(file: URL): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
