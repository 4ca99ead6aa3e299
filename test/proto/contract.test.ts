import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { promisify } from "node:util";
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { A2AService, file_a2a_v1_a2a } from "../../gen/a2a/v1/a2a_pb.js";
import { REPO_ROOT } from "../helpers/server-process.js";

const run = promisify(execFile);
const BIN = join(REPO_ROOT, "node_modules/.bin");
const BUF = join(BIN, "buf");
/** The facts the proto must reproduce: the A2A v1.0.1 wire contract, kept in the repository as data. */
const CONTRACT = join(REPO_ROOT, "test/fixtures/a2a-v1.0.1-wire-contract.json");
const PACKAGE = "lf.a2a.v1";

/** buf with the local protoc-gen-es on PATH, run from the repository root. */
function buf(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(BUF, args, {
    cwd: REPO_ROOT,
    timeout: 25_000,
    env: { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}` },
  });
}

/** Every file under `dir`, as paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath ?? (d as unknown as { path: string }).path, d.name)))
    .sort();
}

// ---------------------------------------------------------------------------
// The wire contract fixture.

interface ContractField {
  readonly number: number;
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly oneof?: string;
  readonly required?: boolean;
  readonly deprecated?: boolean;
}

interface Contract {
  readonly package: string;
  readonly service: { readonly name: string; readonly rpcs: { rpc: string; request: string; response: string; streaming: boolean }[] };
  readonly enums: Record<string, { value: string; number: number }[]>;
  readonly messages: Record<string, ContractField[]>;
}

const contract = JSON.parse(readFileSync(CONTRACT, "utf8")) as Contract;
const enumNames = Object.keys(contract.enums);
const messageNames = Object.keys(contract.messages);

/** A type name as the contract writes it: short within the package, qualified outside it. */
function contractName(typeName: string): string {
  return typeName.startsWith(`${PACKAGE}.`) ? typeName.slice(PACKAGE.length + 1) : typeName;
}

function scalarName(t: ScalarType): string {
  return ScalarType[t].toLowerCase();
}

/** The type column of a field, from the descriptor. */
function typeOf(f: DescField): string {
  switch (f.fieldKind) {
    case "scalar":
      return scalarName(f.scalar);
    case "enum":
      return contractName(f.enum.typeName);
    case "message":
      return contractName(f.message.typeName);
    case "list":
      return f.listKind === "scalar" ? scalarName(f.scalar) : contractName(f.listKind === "enum" ? f.enum.typeName : f.message.typeName);
    case "map": {
      const value = f.mapKind === "scalar" ? scalarName(f.scalar) : contractName(f.mapKind === "enum" ? f.enum.typeName : f.message.typeName);
      return `map<${scalarName(f.mapKey)},${value}>`;
    }
  }
}

/** The label column: "repeated" for lists (maps carry it in their type), "optional" for proto3 optional. */
function labelOf(f: DescField): string {
  if (f.fieldKind === "list") return "repeated";
  return f.proto.proto3Optional ? "optional" : "";
}

interface FieldRow {
  number: number;
  name: string;
  type: string;
  label: string;
  oneof: string;
  deprecated: boolean;
}

function describedFields(m: DescMessage): FieldRow[] {
  return m.fields
    .map((f) => ({ number: f.number, name: f.name, type: typeOf(f), label: labelOf(f), oneof: f.oneof?.name ?? "", deprecated: f.deprecated }))
    .sort((a, b) => a.number - b.number);
}

function contractFields(name: string): FieldRow[] {
  return contract.messages[name]!
    .map((f) => ({ number: f.number, name: f.name, type: f.type, label: f.label ?? "", oneof: f.oneof ?? "", deprecated: f.deprecated === true }))
    .sort((a, b) => a.number - b.number);
}

// ---------------------------------------------------------------------------

describe("the generated code matches proto/", () => {
  it("gen/ is not stale: buf generate reproduces it byte for byte", async () => {
    const out = mkdtempSync(join(tmpdir(), "a2a-hub-gen-"));
    try {
      // The repository's own buf.gen.yaml, with its `out` dirs rebased under the temp dir (-o);
      // its `clean: true` then only empties <out>/gen.
      await buf(["generate", "--template", "buf.gen.yaml", "-o", out]);
      const fresh = join(out, "gen");
      const committed = join(REPO_ROOT, "gen");
      const files = filesUnder(committed);
      expect(filesUnder(fresh)).toEqual(files);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const same = readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f)));
        expect(same, `gen/${f} differs from what buf generate writes now: run npm run generate`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("buf lint passes", async () => {
    const r = await buf(["lint"]).catch((e: { code?: number; stdout?: string; stderr?: string }) => e);
    expect(r, `buf lint failed:\n${r.stdout ?? ""}${r.stderr ?? ""}`).not.toHaveProperty("code");
  });
});

describe("proto/ reproduces the A2A v1.0.1 wire contract", () => {
  it("the contract fixture holds the service, enum and message tables", () => {
    expect(contract.package).toBe(PACKAGE);
    expect(contract.service.name).toBe("A2AService");
    expect(enumNames.length).toBeGreaterThanOrEqual(2);
    expect(messageNames.length).toBeGreaterThanOrEqual(40);
    for (const [name, fields] of Object.entries(contract.messages)) expect(fields.length, `message ${name} has fields`).toBeGreaterThan(0);
  });

  it(`the file declares package ${PACKAGE}`, () => {
    expect(file_a2a_v1_a2a.proto.package).toBe(PACKAGE);
    expect(A2AService.typeName).toBe(`${PACKAGE}.A2AService`);
  });

  it("A2AService has exactly the RPCs of the contract, with their request, response and streaming kind", () => {
    const expected = contract.service.rpcs.map(({ rpc, request, response, streaming }) => ({
      rpc,
      request,
      response,
      kind: streaming ? "server_streaming" : "unary",
    }));
    expect(expected).toHaveLength(11);
    const actual = A2AService.methods.map((m) => ({
      rpc: m.name,
      request: contractName(m.input.typeName),
      response: contractName(m.output.typeName),
      kind: m.methodKind,
    }));
    expect(actual).toEqual(expected);
  });

  it("every enum of the contract has exactly its values and numbers", () => {
    for (const [name, values] of Object.entries(contract.enums)) {
      const e = file_a2a_v1_a2a.enums.find((x) => x.name === name);
      expect(e, `enum ${name} is generated`).toBeDefined();
      const expected = values.map(({ value, number }) => ({ name: value, number }));
      expect(e!.values.map((v) => ({ name: v.name, number: v.number })), `enum ${name}`).toEqual(expected);
    }
    expect(file_a2a_v1_a2a.enums.map((e) => e.name).sort()).toEqual([...enumNames].sort());
  });

  it("every message of the contract matches field for field: number, name, type, label, oneof", () => {
    for (const name of messageNames) {
      const m = file_a2a_v1_a2a.messages.find((x) => x.name === name);
      expect(m, `message ${name} is generated`).toBeDefined();
      expect(describedFields(m!), `message ${name}`).toEqual(contractFields(name));
    }
  });

  it("the proto declares no message the contract does not list", () => {
    expect(file_a2a_v1_a2a.messages.map((m) => m.name).sort()).toEqual([...messageNames].sort());
  });

  it("oneofs are real oneofs and proto3 optionals are not", () => {
    for (const name of messageNames) {
      const m = file_a2a_v1_a2a.messages.find((x) => x.name === name)!;
      const expected = [...new Set(contractFields(name).map((f) => f.oneof).filter(Boolean))].sort();
      expect(m.oneofs.map((o) => o.name).sort(), `oneofs of ${name}`).toEqual(expected);
    }
  });
});
