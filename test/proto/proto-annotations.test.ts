import { beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { file_a2a_v1_a2a } from "../../gen/a2a/v1/a2a_pb.js";
import { OPERATIONS } from "../../src/protocol/index.js";
import { REPO_ROOT } from "../helpers/server-process.js";

/**
 * proto/ carries what the official a2a.proto carries for other
 * tools (google.api.http rules and field_behavior), read here from the image
 * `buf build` makes, the same descriptors any generator sees.
 */

const run = promisify(execFile);
const BUF = join(REPO_ROOT, "node_modules/.bin/buf");
const CONTRACT = JSON.parse(readFileSync(join(REPO_ROOT, "test/fixtures/a2a-v1.0.1-wire-contract.json"), "utf8")) as {
  messages: Record<string, { name: string; required?: boolean }[]>;
};

/** The parts of a google.api.HttpRule (ProtoJSON) the A2A proto uses. */
interface HttpRule {
  get?: string;
  post?: string;
  delete?: string;
  body?: string;
  additionalBindings?: HttpRule[];
}
interface FieldJson {
  name: string;
  jsonName: string;
  options?: { "[google.api.field_behavior]"?: string[] };
}
interface MessageJson {
  name: string;
  field?: FieldJson[];
}
interface FileJson {
  name: string;
  dependency?: string[];
  messageType?: MessageJson[];
  service?: { name: string; method: { name: string; inputType: string; options?: { "[google.api.http]"?: HttpRule } }[] }[];
}

let a2a: FileJson;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "a2a-hub-image-"));
  try {
    const image = join(dir, "image.json");
    await run(BUF, ["build", "proto", "--exclude-source-info", "-o", image], { cwd: REPO_ROOT, timeout: 60_000 });
    const files = (JSON.parse(readFileSync(image, "utf8")) as { file: FileJson[] }).file;
    a2a = files.find((f) => f.name === "a2a/v1/a2a.proto")!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function message(name: string): MessageJson {
  const m = a2a.messageType!.find((x) => x.name === name);
  if (!m) throw new Error(`no message ${name}`);
  return m;
}

/** One rule as "VERB path", its `{field=*}` variables named by ProtoJSON name as the REST binding's table names them. */
function route(rule: HttpRule, input: MessageJson): { line: string; body?: string; variables: string[] } {
  const verb = rule.get !== undefined ? "GET" : rule.post !== undefined ? "POST" : rule.delete !== undefined ? "DELETE" : "?";
  const template = rule.get ?? rule.post ?? rule.delete ?? "";
  const variables: string[] = [];
  const path = template.replace(/\{(\w+)(?:=\*)?\}/g, (_, field: string) => {
    variables.push(field);
    const f = input.field?.find((x) => x.name === field);
    return `{${f ? f.jsonName : `?${field}`}}`;
  });
  return { line: `${verb} ${path}`, body: rule.body, variables };
}

describe("google.api.http: the §11.3 REST mapping in proto/", () => {
  it("every RPC's rule is the route the hub's REST binding serves for it, and again under /{tenant}", () => {
    const methods = a2a.service![0]!.method;
    expect(methods.map((m) => m.name).sort()).toEqual(Object.values(OPERATIONS).map((o) => o.rpc.name).sort());
    for (const m of methods) {
      const op = Object.values(OPERATIONS).find((o) => o.rpc.name === m.name)!;
      const input = message(m.inputType.replace(/^\.lf\.a2a\.v1\./, ""));
      const rule = m.options?.["[google.api.http]"];
      expect(rule, `${m.name} has no google.api.http rule`).toBeDefined();
      const main = route(rule!, input);
      const served = op.rest.map((r) => `${r.verb} ${r.path}`);
      expect(served, m.name).toContain(main.line);
      // §11.3: POST carries the request as its body, GET and DELETE carry none.
      expect(main.body, m.name).toBe(main.line.startsWith("POST") ? "*" : undefined);
      // The tenant form: the same rule with a leading {tenant} segment (§8.3.2 AgentInterface.tenant).
      expect(rule!.additionalBindings?.map((b) => route(b, input)), m.name).toEqual([
        { line: main.line.replace(" /", " /{tenant}/"), body: main.body, variables: ["tenant", ...main.variables] },
      ]);
      // Every path variable binds a field the request message has.
      for (const v of ["tenant", ...main.variables]) expect(input.field?.map((f) => f.name), `${m.name} {${v}}`).toContain(v);
    }
  });
});

describe("google.api.field_behavior: the REQUIRED fields of the contract", () => {
  it("REQUIRED is annotated on exactly the fields the A2A v1.0.1 contract marks required, in every message", () => {
    const annotated: string[] = [];
    const walk = (prefix: string, messages: MessageJson[] | undefined): void => {
      for (const m of messages ?? []) {
        for (const f of m.field ?? []) if (f.options?.["[google.api.field_behavior]"]?.includes("REQUIRED")) annotated.push(`${prefix}${m.name}.${f.name}`);
        walk(`${prefix}${m.name}.`, (m as { nestedType?: MessageJson[] }).nestedType);
      }
    };
    walk("", a2a.messageType);
    const required = Object.entries(CONTRACT.messages).flatMap(([name, fields]) => fields.filter((f) => f.required).map((f) => `${name}.${f.name}`));
    expect(required.length).toBeGreaterThan(50);
    expect(annotated.sort()).toEqual(required.sort());
  });
});

describe("the googleapis protos are vendored, and stay out of gen/", () => {
  it("proto/google/api holds google-proto-files' annotations, http and field_behavior byte for byte", () => {
    const vendored = readdirSync(join(REPO_ROOT, "proto/google/api")).sort();
    expect(vendored).toEqual(["annotations.proto", "field_behavior.proto", "http.proto"]);
    for (const f of vendored) {
      const same = readFileSync(join(REPO_ROOT, "proto/google/api", f)).equals(readFileSync(join(REPO_ROOT, "node_modules/google-proto-files/google/api", f)));
      expect(same, `proto/google/api/${f} differs from google-proto-files: npm run vendor:googleapis`).toBe(true);
    }
    expect(a2a.dependency).toEqual(expect.arrayContaining(["google/api/annotations.proto", "google/api/field_behavior.proto"]));
  });

  it("gen/'s descriptor imports no google.api file and carries no option, so TypeScript consumers see no change", () => {
    expect(file_a2a_v1_a2a.proto.dependency).toEqual(["google/protobuf/empty.proto", "google/protobuf/struct.proto", "google/protobuf/timestamp.proto"]);
    for (const m of file_a2a_v1_a2a.services[0]!.methods) expect(m.proto.options, m.name).toBeUndefined();
    // Field options are left only where the contract itself has them (`deprecated`); an extension would sit in $unknown.
    for (const m of file_a2a_v1_a2a.messages) {
      for (const f of m.fields) {
        if (f.proto.options === undefined) continue;
        expect(f.deprecated, `${m.name}.${f.name} has options`).toBe(true);
        expect(f.proto.options.$unknown ?? [], `${m.name}.${f.name}`).toEqual([]);
      }
    }
  });
});
