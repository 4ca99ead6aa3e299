import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create, type DescMessage } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import { CARD_REQUIRED_FIELDS, cardSigningPayload, cardVerificationPayloads, jcs } from "../../../src/card-signature/index.js";
import { REPO_ROOT } from "../../helpers/server-process.js";

/** An IEEE 754 double from its 16 hex digits (RFC 8785 Appendix B writes them so). */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe("JCS against RFC 8785's own test vectors", () => {
  it("§3.2.2: the sample object canonicalizes to the RFC's output (numbers, escapes, literals)", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(jcs(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it("§3.2.3: keys sort by UTF-16 code units (control, digit, Latin-1, euro, emoji surrogates, Hebrew)", () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    // Read the order off the text: JS objects would put the integer-like key "1" first.
    const values = [...jcs(input).matchAll(/:"([^"]*)"/g)].map((m) => m[1]);
    expect(values).toEqual(["Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"]);
    expect(jcs(input)).toBe('{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  });

  // Appendix B: IEEE 754 bits -> the JSON number text JCS must produce.
  const NUMBERS: Array<[string, string]> = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  it.each(NUMBERS)("Appendix B: %s serializes as %s", (hex, text) => {
    expect(jcs([double(hex)])).toBe(`[${text}]`);
  });

  it("Appendix B: NaN and Infinity have no canonical form", () => {
    expect(() => jcs([double("7fffffffffffffff")])).toThrow();
    expect(() => jcs([double("7ff0000000000000")])).toThrow();
  });
});

describe("§8.4.1 signing payload", () => {
  it("the REQUIRED table equals the field_behavior REQUIRED annotations of proto/ for every card message", () => {
    const proto = readFileSync(join(REPO_ROOT, "proto/a2a/v1/a2a.proto"), "utf8");
    const fromProto: Record<string, string[]> = {};
    for (const m of proto.matchAll(/^message (\w+) \{([\s\S]*?)^\}/gm)) {
      const required = [...m[2]!.matchAll(/(\w+) = \d+ \[\(google\.api\.field_behavior\) = REQUIRED\]/g)].map((f) => f[1]!);
      if (required.length) fromProto[`lf.a2a.v1.${m[1]}`] = required;
    }
    for (const [type, fields] of Object.entries(CARD_REQUIRED_FIELDS)) expect(fromProto[type], type).toEqual(fields);
    // Every message a card reaches that has REQUIRED fields is in the table.
    const reached = new Set<string>();
    const walk = (desc: DescMessage): void => {
      if (reached.has(desc.typeName)) return;
      reached.add(desc.typeName);
      for (const f of desc.fields) if (f.message && f.message.typeName.startsWith("lf.")) walk(f.message);
    };
    walk(AgentCardSchema);
    for (const type of reached) if (fromProto[type]) expect(CARD_REQUIRED_FIELDS[type], type).toEqual(fromProto[type]);
  });

  it("REQUIRED fields stay with default values, optionals set to false stay, unset defaults and signatures go", () => {
    const card = create(AgentCardSchema, {
      name: "Example Agent",
      description: "",
      capabilities: { streaming: false, pushNotifications: false },
      signatures: [{ protected: "x", signature: "y" }],
    });
    expect(cardSigningPayload(card)).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"defaultInputModes":[],"defaultOutputModes":[],"description":"","name":"Example Agent","skills":[],"supportedInterfaces":[],"version":""}',
    );
    // @a2a-js/sdk's reading drops the empty REQUIRED values: a verifier also accepts that form.
    expect(cardVerificationPayloads(card)).toEqual([cardSigningPayload(card), '{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}']);
  });
});
