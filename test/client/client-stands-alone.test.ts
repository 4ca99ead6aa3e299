import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { REPO_ROOT } from "../helpers/server-process.js";

/*
 * The client (src/client) works against any A2A server without loading
 * server code: what both sides share lives in src/protocol, a leaf that
 * imports only gen/, the protobuf codec (src/codec) and libraries. Checked on the module graph esbuild
 * resolves from each entry, which is what `import { A2AClient }` loads.
 */

/** The module graph an entry loads: repository files (relative paths) and the packages they import. */
async function graphOf(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const result = await build({
    entryPoints: [join(REPO_ROOT, entry)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const meta: Metafile = result.metafile;
  const files = Object.keys(meta.inputs).sort();
  const packages = new Set<string>();
  for (const input of Object.values(meta.inputs)) {
    for (const i of input.imports) if (i.external && !i.path.startsWith("node:")) packages.add(i.path.startsWith("@") ? i.path.split("/").slice(0, 2).join("/") : i.path.split("/")[0]!);
  }
  return { files, packages: [...packages].sort() };
}

const outside = (files: string[], allowed: string[]) => files.filter((f) => !allowed.some((a) => f.startsWith(a)));

/**
 * Packages only the server needs: the stores (SQLite, PostgreSQL), logs, metrics, the trace SDK
 * and config files. (@opentelemetry/api is not one: the client propagates
 * trace context through it, a no-op until an application installs an SDK.)
 */
const SERVER_PACKAGES = ["better-sqlite3", "pg", "pino", "prom-client", "@opentelemetry/sdk-trace-node", "yaml"];

describe("the client stands alone", () => {
  it("importing src/client loads only src/client, src/protocol, src/codec, src/card-signature and gen/, and no server package", async () => {
    const { files, packages } = await graphOf("src/client/index.ts");
    // Not vacuous: the client does reach the shared leaf and its own transports.
    expect(files).toContain("src/protocol/error-table.ts");
    expect(files).toContain("src/client/jsonrpc-transport.ts");
    expect(outside(files, ["src/client/", "src/protocol/", "src/codec/", "src/card-signature/", "gen/"])).toEqual([]);
    expect(packages.filter((p) => SERVER_PACKAGES.includes(p))).toEqual([]);
  });

  it("src/protocol is a leaf: it imports only itself, the codec below it and gen/", async () => {
    const { files } = await graphOf("src/protocol/index.ts");
    expect(files).toContain("src/protocol/dialect-v03.ts");
    expect(outside(files, ["src/protocol/", "src/codec/", "gen/"])).toEqual([]);
  });

  it("src/codec is below protocol: it imports nothing of ours", async () => {
    const { files } = await graphOf("src/codec/index.ts");
    expect(files).toContain("src/codec/json-from-binary.ts");
    expect(outside(files, ["src/codec/"])).toEqual([]);
  });

  it.each(["src/core/index.ts", "src/bindings/jsonrpc/index.ts", "src/bindings/rest/index.ts", "src/bindings/rpc/index.ts"])("%s takes the shared rules from src/protocol", async (entry) => {
    const { files } = await graphOf(entry);
    expect(files.some((f) => f.startsWith("src/protocol/"))).toBe(true);
    expect(files.some((f) => f.startsWith("src/client/"))).toBe(false);
  });
});
