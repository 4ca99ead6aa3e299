import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** The browser app's entry, beside this file (app/main.ts). */
const ENTRY = fileURLToPath(new URL("./app/main.ts", import.meta.url));

/** The console's script, bundled and minified, with a validator for caches. */
export interface ConsoleBundle {
  readonly js: string;
  /** The same script gzip-compressed, for browsers that accept it (all do). */
  readonly gzip: Buffer;
  readonly etag: string;
}

let built: Promise<ConsoleBundle> | undefined;

/**
 * Bundles the console's browser app with esbuild the first time it is asked
 * for and keeps the result for the life of the process: no build step at
 * install time, no committed output that could go stale, and `npm start`
 * stays fast (esbuild takes well under a second; it is already installed
 * for tsx). A failed build is not cached, so the next request retries.
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= bundle().catch((e: unknown) => {
    built = undefined;
    throw e;
  });
  return built;
}

async function bundle(): Promise<ConsoleBundle> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const js = out.outputFiles[0]!.text;
  return { js, gzip: gzipSync(js, { level: 9 }), etag: `"${createHash("sha256").update(js).digest("base64url").slice(0, 27)}"` };
}
