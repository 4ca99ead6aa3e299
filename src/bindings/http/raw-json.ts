/**
 * JSON text already written (codec/json-from-binary.ts), carried where a JSON
 * value goes: sendJson splices it into the body it writes instead of
 * stringifying a value. Anything else that stringifies it still gets the
 * same JSON, through toJSON, at the cost of a parse.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * JSON.stringify of `body`, with the RawJson texts it holds spliced in as
 * they are: at the top, as a member of the top object (a JSON-RPC
 * response's `result`), or as such a member of each element of a top array
 * (a JSON-RPC batch). Deeper ones go through toJSON.
 */
export function jsonText(body: unknown): string {
  if (body instanceof RawJson) return body.text;
  if (Array.isArray(body)) {
    if (!body.some(holdsRaw)) return JSON.stringify(body);
    return `[${body.map((item) => (item === undefined ? "null" : jsonText(item))).join(",")}]`;
  }
  if (!holdsRaw(body)) return JSON.stringify(body);
  let out = "";
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const text = value instanceof RawJson ? value.text : JSON.stringify(value);
    // JSON.stringify leaves out members whose value it cannot write (undefined, functions).
    if (text === undefined) continue;
    out += `${out === "" ? "" : ","}${JSON.stringify(key)}:${text}`;
  }
  return `{${out}}`;
}

/** Whether a value is a RawJson or a plain object with a RawJson member. */
function holdsRaw(value: unknown): boolean {
  if (value instanceof RawJson) return true;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const key in value) if ((value as Record<string, unknown>)[key] instanceof RawJson) return true;
  return false;
}
