import fc from "fast-check";

/**
 * JSON text the fuzzers build piece by piece, so that a body can hold what
 * JSON.stringify never writes: number literals beyond a double (`1e400`,
 * 2^64 in full), `-0`, and objects that repeat a key.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written member by member, keys possibly repeated (RFC 8259 §4 leaves the outcome to the parser). */
export class Pairs {
  constructor(readonly pairs: ReadonlyArray<readonly [string, Doc]>) {}
}

/** A JSON document under construction. */
export type Doc = null | boolean | number | string | RawJson | Pairs | readonly Doc[] | { readonly [key: string]: Doc };

/** The JSON text of a document. */
export function jsonText(doc: Doc): string {
  if (doc instanceof RawJson) return doc.text;
  if (doc instanceof Pairs) return `{${doc.pairs.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(",")}}`;
  if (Array.isArray(doc)) return `[${doc.map(jsonText).join(",")}]`;
  if (doc !== null && typeof doc === "object") {
    return `{${Object.entries(doc)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v as Doc)}`)
      .join(",")}}`;
  }
  return JSON.stringify(doc) ?? "null";
}

/** Number literals at and past the edges of what parsers hold exactly. */
export const HUGE_NUMBERS: readonly RawJson[] = [
  "1e308", "1e400", "-1e400", "1e-400", "-0", "-0.0", "18446744073709551616", "9223372036854775808", "-9223372036854775809",
  "2147483648", "-2147483649", "4294967296", "9007199254740993", "123456789012345678901234567890", "1E+2", "0.5", "1e2",
].map((t) => new RawJson(t));

/** Strings that numeric, boolean and enum fields might be tempted to accept. */
const NUMBER_LIKE_STRINGS = ["NaN", "Infinity", "-Infinity", "1e400", "0x10", "1_000", " 1", "", "true", "null", "-0", "18446744073709551616"];

/** A string of `length` characters made cheaply (fast-check's own strings stay short). */
export const longString = (min: number, max: number): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom("x", "é", "𝄞", "\u0000", "\\", '"', "ab"), fc.integer({ min, max })).map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));

/** `depth` nested arrays or objects as raw JSON text, around `inner`. */
export function nested(depth: number, shape: "array" | "object", inner = "1"): RawJson {
  return shape === "array" ? new RawJson(`${"[".repeat(depth)}${inner}${"]".repeat(depth)}`) : new RawJson(`${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}`);
}

/** A nesting depth: mostly near the default limit of 64, sometimes far past it. */
export const nestingDepth: fc.Arbitrary<number> = fc.oneof(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 60, max: 70 }), fc.constantFrom(100, 1_000, 10_000));

/** A value that a field of any type might wrongly be given. */
export const weirdValue: fc.Arbitrary<Doc> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Doc>(null, true, false, 0, -1, 1.5, "", [], {}, [null], { "": null }) },
  { weight: 3, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom("TASK_STATE_BOGUS", "ROLE_ROBOT", "role_user", "COMPLETED", "task_state_working", "user ", "Cancelled") },
  { weight: 1, arbitrary: longString(1_000, 70_000) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Doc> },
  { weight: 1, arbitrary: fc.tuple(nestingDepth, fc.constantFrom("array", "object") as fc.Arbitrary<"array" | "object">).map(([d, s]) => nested(d, s)) },
);

type Path = readonly (string | number)[];

/** Every path into the plain objects and arrays of a document (raw pieces are leaves). */
function pathsOf(doc: Doc, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (prefix.length >= 8 || doc === null || typeof doc !== "object" || doc instanceof RawJson || doc instanceof Pairs) return out;
  if (Array.isArray(doc)) doc.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else for (const [k, v] of Object.entries(doc)) pathsOf(v as Doc, [...prefix, k], out);
  return out;
}

/** The document with the value at `path` replaced by `f(value)`; `f` returning undefined removes it. */
function updateAt(doc: Doc, path: Path, f: (v: Doc) => Doc | undefined): Doc | undefined {
  if (path.length === 0) return f(doc);
  const [head, ...rest] = path;
  if (Array.isArray(doc)) {
    const copy = [...doc];
    const v = updateAt(copy[head as number] as Doc, rest, f);
    if (v === undefined) copy.splice(head as number, 1);
    else copy[head as number] = v;
    return copy;
  }
  const copy: Record<string, Doc> = { ...(doc as Record<string, Doc>) };
  const v = updateAt(copy[head as string] as Doc, rest, f);
  if (v === undefined) delete copy[head as string];
  else copy[head as string] = v;
  return copy;
}

/** One change to a request: a member dropped, retyped, wrapped, stringified, or an unknown one added. */
type Mutation =
  | { readonly op: "drop" }
  | { readonly op: "replace"; readonly value: Doc }
  | { readonly op: "wrap" }
  | { readonly op: "stringify" }
  | { readonly op: "add"; readonly key: string; readonly value: Doc };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ op: "drop" as const }) },
  { weight: 5, arbitrary: weirdValue.map((value) => ({ op: "replace" as const, value })) },
  { weight: 1, arbitrary: fc.constant({ op: "wrap" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "stringify" as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("add" as const), key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("kind", "id", "tenant", "__proto__", "constructor")), value: weirdValue }) },
);

function apply(doc: Doc, at: number, m: Mutation): Doc {
  const paths = pathsOf(doc);
  const path = paths[at % paths.length]!;
  const out = updateAt(doc, path, (v) => {
    switch (m.op) {
      case "drop":
        return undefined;
      case "replace":
        return m.value;
      case "wrap":
        return [v];
      case "stringify":
        return jsonText(v);
      case "add":
        return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof RawJson) && !(v instanceof Pairs) ? { ...(v as Record<string, Doc>), [m.key]: m.value } : m.value;
    }
  });
  return out === undefined ? null : out;
}

/** A document with one to three random changes anywhere in it (the envelope included). */
export function mutated(doc: fc.Arbitrary<Doc>): fc.Arbitrary<Doc> {
  return fc.tuple(doc, fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 })).map(([d, ms]) => ms.reduce((acc, [at, m]) => apply(acc, at, m), d));
}

/** The object with some of its keys written twice, the repeats holding other values (first or last wins, by chance). */
export function withDuplicateKeys(doc: fc.Arbitrary<Doc>): fc.Arbitrary<Doc> {
  return fc.tuple(doc, fc.array(fc.tuple(fc.nat(), weirdValue, fc.boolean()), { minLength: 1, maxLength: 3 })).map(([d, dups]) => {
    if (d === null || typeof d !== "object" || Array.isArray(d) || d instanceof RawJson || d instanceof Pairs) return d;
    const entries = Object.entries(d as Record<string, Doc>);
    if (entries.length === 0) return d;
    const pairs: Array<readonly [string, Doc]> = [...entries];
    for (const [at, value, before] of dups) {
      const [key] = entries[at % entries.length]!;
      // Either the odd value comes first and the original wins, or the reverse.
      if (before) pairs.unshift([key, value]);
      else pairs.push([key, value]);
    }
    return new Pairs(pairs);
  });
}

/** Bytes that are never valid UTF-8 where they stand: lone continuation bytes, overlongs, surrogates, 5-byte leads. */
const INVALID_UTF8: readonly number[][] = [[0xff], [0xfe], [0x80], [0xbf], [0xc0, 0xaf], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]];

/** The UTF-8 of `text` with invalid byte sequences spliced in at random offsets (inside strings or between tokens). */
export function withInvalidUtf8(text: fc.Arbitrary<string>): fc.Arbitrary<Uint8Array> {
  return fc.tuple(text, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)), { minLength: 1, maxLength: 4 })).map(([t, inserts]) => {
    let bytes = Buffer.from(t, "utf8");
    for (const [at, seq] of inserts) {
      const i = bytes.length === 0 ? 0 : at % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from(seq), bytes.subarray(i)]);
    }
    return new Uint8Array(bytes);
  });
}
