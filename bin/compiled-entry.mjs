// Compiles a TypeScript entry point of the server into one JavaScript module
// with esbuild, for `npm start` (bin/start.mjs) to run on plain Node.
//
// Why not tsx, as the tests do: tsx runs its module loader in a second V8
// isolate for the life of the process (about 50 MiB of RSS on an idle hub),
// and it compiles with esbuild's keepNames, which wraps every function
// expression in a call that redefines its `name`: a cost paid each time a
// request handler creates a closure. A compile of the whole server takes
// well under a second, so a clean clone still needs no build step.
//
// The sources find files beside them through `import.meta.url` (the
// console's app, package.json): each module keeps its own file's URL in
// the bundle, so those lookups see the source tree as they do under tsx.
// Packages stay imports, resolved from the repository's node_modules.
import { build, stop } from "esbuild";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Each source module's `import.meta.url`, as it is when the module runs from its own file. */
const keepModuleUrls = {
  name: "keep-module-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      return { contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/**
 * Compiles `entry` (a path from the repository root) and imports it. The
 * compiled file is this process's own (several hubs may start at once),
 * removed at exit, or at a later start when this process was killed.
 */
export async function runCompiled(entry) {
  const dir = join(ROOT, ".build");
  const out = join(dir, `${entry.replace(/[^a-z0-9]+/gi, "-")}.${process.pid}.mjs`);
  try {
    mkdirSync(dir, { recursive: true });
    removeOrphans(dir);
    writeFileSync(out, "");
  } catch (e) {
    // A read-only checkout (a container's image, say): the sources run under tsx instead, as the tests run them.
    process.stderr.write(`a2a-hub: cannot write ${dir} (${e.code ?? e.message}); running the sources under tsx\n`);
    const { register } = await import("tsx/esm/api");
    register();
    return import(pathToFileURL(join(ROOT, entry)).href);
  }
  process.on("exit", () => {
    rmSync(out, { force: true });
    rmSync(`${out}.map`, { force: true });
  });
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    // Read only under node --enable-source-maps (NODE_OPTIONS), which maps stack traces to the sources; held in memory then.
    sourcemap: "linked",
    plugins: [keepModuleUrls],
    logLevel: "warning",
  });
  // esbuild's service process is not the server's to keep (the console starts it again if it bundles its app).
  await stop();
  return import(pathToFileURL(out).href);
}

/** Compiled files of processes that are gone (a SIGKILL skips the exit hook). */
function removeOrphans(dir) {
  for (const name of readdirSync(dir)) {
    const pid = Number(/\.(\d+)\.mjs(\.map)?$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}
