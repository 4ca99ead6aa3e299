import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../src/server/index.js";

/** A temp directory for config files: `write` puts one there, `remove` (for afterAll) deletes them all. */
export function configFiles(prefix: string): { readonly dir: string; write(name: string, text: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write: (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The ConfigError `fn` throws; anything else (or nothing) fails the test. */
export function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}
