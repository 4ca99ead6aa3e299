import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./server-process.js";

/** The A2A_HUB_* variables the serve configuration reads, found in its sources (the limit variables come from LIMIT_KEYS). */
export function configVariables(): string[] {
  const dirs = ["src/server/config", "src/server"].map((d) => join(REPO_ROOT, d));
  const names = new Set<string>();
  for (const d of dirs) {
    for (const f of readdirSync(d).filter((n) => n.endsWith(".ts"))) {
      for (const m of readFileSync(join(d, f), "utf8").matchAll(/"(A2A_HUB_[A-Z0-9_]*[A-Z0-9])"/g)) names.add(m[1]!);
    }
  }
  return [...names].sort();
}
