/** Where one direct child of the top-level array or object lies in the body. */
export interface JsonChild {
  /** Its member name, for a child of an object (already unescaped). */
  readonly key?: string;
  /** Byte offsets of the child's text: `body.subarray(start, end)` is valid JSON. */
  readonly start: number;
  readonly end: number;
  /** How deeply the child nests arrays and objects (0 for a string, number or literal). */
  readonly depth: number;
}

/** What one scan found: not JSON at all, or a JSON text of this shape. */
export type JsonScan =
  | { readonly ok: false; readonly reason: string }
  | {
      readonly ok: true;
      /** What the top-level value is. */
      readonly top: "object" | "array" | "scalar";
      /** Its nesting depth (1 for `{}` or `[]`). */
      readonly depth: number;
      /** The top-level value's direct children, in order. */
      readonly children: readonly JsonChild[];
    };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const HEX = /^[0-9a-fA-F]{4}$/;
const LITERALS = ["true", "false", "null"].map((l) => Buffer.from(l));

/** What the scanner expects next. */
const enum Next {
  Value,
  ValueOrClose,
  KeyOrClose,
  Key,
  Colon,
  AfterValue,
}

/**
 * Checks that `body` is one JSON text (RFC 8259) and reports its top-level
 * shape and where each direct child lies, with its depth, without building
 * any value: a loop over the bytes with an explicit stack of open
 * containers, so a body nested 100,000 levels deep costs one pass and no
 * call stack. A JSON facade uses it on bodies past its nesting limit to
 * answer the parts it can read (the top-level `id`, the batch elements that
 * are within the limit) and refuse only the part that is too deep. Bytes
 * that are not UTF-8 are let through inside strings, as the UTF-8 decoder
 * the facades use replaces them rather than failing. A leading BOM is skipped.
 */
export function scanJson(body: Uint8Array): JsonScan {
  const stack: number[] = []; // open containers: '[' or '{' byte
  const children: JsonChild[] = [];
  let pos = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  let next = Next.Value;
  let maxDepth = 0;
  let top: "object" | "array" | "scalar" | undefined;
  // The child of the top-level container being read.
  let child: { key?: string; start: number; depth: number } | undefined;
  let key: string | undefined;
  const fail = (what: string) => ({ ok: false as const, reason: `${what} at byte ${pos}` });

  /** A value just ended at `pos`: closes the top-level child if it was one; what comes next. */
  const valueEnded = () => {
    if (child && stack.length === 1) {
      // Written out: a spread that adds keys gives each object a hidden class of its own (docs/hot-path-objects.md).
      children.push({ key: child.key, start: child.start, depth: child.depth, end: pos });
      child = undefined;
    }
    return Next.AfterValue;
  };

  for (;;) {
    while (pos < body.length && WS.has(body[pos]!)) pos++;
    if (pos >= body.length) {
      if (top !== undefined && stack.length === 0 && next === Next.AfterValue) return { ok: true, top, depth: maxDepth, children };
      return fail(top === undefined ? "no JSON value" : "unexpected end of the body");
    }
    const b = body[pos]!;
    switch (next) {
      case Next.ValueOrClose:
        if (b === 0x5d) {
          pos++;
          stack.pop();
          next = valueEnded();
          continue;
        }
      // falls through: a value
      case Next.Value: {
        if (top === undefined) top = b === 0x7b ? "object" : b === 0x5b ? "array" : "scalar";
        else if (stack.length === 0) return fail("a second JSON value");
        if (stack.length === 1) child = { key, start: pos, depth: 0 };
        key = undefined;
        if (b === 0x7b || b === 0x5b) {
          stack.push(b);
          pos++;
          maxDepth = Math.max(maxDepth, stack.length);
          if (child) child.depth = Math.max(child.depth, stack.length - 1);
          next = b === 0x7b ? Next.KeyOrClose : Next.ValueOrClose;
          continue;
        }
        const end = scalarEnd(body, pos);
        if (end < 0) return fail("not a JSON value");
        pos = end;
        next = valueEnded();
        continue;
      }
      case Next.KeyOrClose:
        if (b === 0x7d) {
          pos++;
          stack.pop();
          next = valueEnded();
          continue;
        }
      // falls through: a member name
      case Next.Key: {
        if (b !== QUOTE) return fail("expected a member name");
        const end = stringEnd(body, pos);
        if (end < 0) return fail("an unterminated or malformed string");
        // Names of the top-level object are kept (the envelope's members); deeper ones are only checked.
        if (stack.length === 1) key = JSON.parse(Buffer.from(body.subarray(pos, end)).toString("utf8")) as string;
        pos = end;
        next = Next.Colon;
        continue;
      }
      case Next.Colon:
        if (b !== 0x3a) return fail("expected ':'");
        pos++;
        next = Next.Value;
        continue;
      case Next.AfterValue: {
        const open = stack.at(-1);
        if (open === undefined) return fail("a second JSON value");
        pos++;
        if (b === 0x2c) next = open === 0x5b ? Next.Value : Next.Key;
        else if ((b === 0x5d && open === 0x5b) || (b === 0x7d && open === 0x7b)) {
          stack.pop();
          next = valueEnded();
        } else return fail("expected ',' or the end of the container");
        continue;
      }
    }
  }
}

/** The offset after the string, number or literal at `pos`, or -1 when there is none. */
function scalarEnd(body: Uint8Array, pos: number): number {
  const b = body[pos]!;
  if (b === QUOTE) return stringEnd(body, pos);
  for (const lit of LITERALS) {
    if (b === lit[0] && lit.every((c, i) => body[pos + i] === c)) return pos + lit.length;
  }
  return numberEnd(body, pos);
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

/** The offset after the number at `pos` (RFC 8259 §6: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?), or -1. */
function numberEnd(body: Uint8Array, pos: number): number {
  let i = pos;
  if (body[i] === 0x2d) i++;
  if (body[i] === 0x30) i++;
  else if (isDigit(body[i])) while (isDigit(body[i])) i++;
  else return -1;
  if (body[i] === 0x2e) {
    i++;
    if (!isDigit(body[i])) return -1;
    while (isDigit(body[i])) i++;
  }
  if (body[i] === 0x65 || body[i] === 0x45) {
    i++;
    if (body[i] === 0x2b || body[i] === 0x2d) i++;
    if (!isDigit(body[i])) return -1;
    while (isDigit(body[i])) i++;
  }
  return i;
}

/** The offset after the closing quote of the string at `pos`, or -1 when it is malformed (RFC 8259 §7). */
function stringEnd(body: Uint8Array, pos: number): number {
  for (let i = pos + 1; i < body.length; i++) {
    const c = body[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = body[i + 1];
      if (e === undefined) return -1;
      if (e === 0x75) {
        if (!HEX.test(Buffer.from(body.subarray(i + 2, i + 6)).toString("latin1"))) return -1;
        i += 5;
      } else if (ESCAPES.has(e)) i++;
      else return -1;
    }
  }
  return -1;
}
