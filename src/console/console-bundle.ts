import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/** The browser app's entry, beside this file (app/main.ts). */
const ENTRY = fileURLToPath(new URL("./app/main.ts", import.meta.url));

/**
 * The app bundled by the build (`npm run build`), beside the compiled route:
 * the published package has neither the app's sources nor esbuild.
 */
export const PREBUILT_APP = new URL("./app/app.js", import.meta.url);

/** The console's script, bundled and minified, with a validator for caches. */
export interface ConsoleBundle {
  readonly js: string;
  /** The same script gzip-compressed, for browsers that accept it (all do). */
  readonly gzip: Buffer;
  readonly etag: string;
}

let built: Promise<ConsoleBundle> | undefined;

/**
 * The console's script, read the first time it is asked for and kept for
 * the life of the process: the build's bundle when the hub runs compiled,
 * else (a clone, under tsx or `npm start`) the sources bundled with esbuild
 * then (well under a second), so no output can go stale. A failure is not
 * cached, so the next request retries.
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= load().catch((e: unknown) => {
    built = undefined;
    throw e;
  });
  return built;
}

async function load(): Promise<ConsoleBundle> {
  const js = await readFile(PREBUILT_APP, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return bundleConsoleApp();
    throw e;
  });
  return { js, gzip: gzipSync(js, { level: 9 }), etag: `"${createHash("sha256").update(js).digest("base64url").slice(0, 27)}"` };
}

/** Bundles the browser app from its sources (esbuild, a development dependency: the build and a clone have it). */
export async function bundleConsoleApp(): Promise<string> {
  const { build } = await import("esbuild");
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
  return out.outputFiles[0]!.text;
}
