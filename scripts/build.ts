/**
 * `npm run build` (and `prepack`): compiles src/ and gen/ to dist/ with tsc
 * (ES modules, .d.ts, source maps; tsconfig.build.json), then bundles the
 * console's browser app and copies its style beside the compiled route, where
 * src/console finds them at run time. Run under tsx: the console's bundle
 * options are the ones src/console uses in a clone.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleConsoleApp, PREBUILT_APP } from "../src/console/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");

rmSync(DIST, { recursive: true, force: true });
execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });

// PREBUILT_APP is under src/ here (where nothing is written); the compiled route looks in the same place under dist/.
const app = join(DIST, relative(ROOT, fileURLToPath(PREBUILT_APP)));
mkdirSync(dirname(app), { recursive: true });
writeFileSync(app, await bundleConsoleApp());
copyFileSync(join(ROOT, "src/console/app/console.css"), join(dirname(app), "console.css"));
