#!/usr/bin/env node
// The package's bin. Installed, it runs the compiled CLI (dist/, built by
// `npm run build` before packing). In a clone, where the sources sit beside
// it, it runs them under tsx, so that a clean clone needs no build step and
// never meets a stale dist/.
import { existsSync } from "node:fs";

const sources = new URL("../src/cli/main.ts", import.meta.url);
if (existsSync(sources)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(sources.href);
} else {
  await import("../dist/src/cli/main.js");
}
