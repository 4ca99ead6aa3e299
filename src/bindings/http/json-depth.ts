/** Default cap on how deeply a request's JSON may nest arrays and objects. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** What a facade tells a client whose body nests too deeply: the limit, by its configuration key. */
export function jsonDepthRefusal(limit: number): string {
  return `request JSON nests deeper than the limit of ${limit} (limits.maxJsonDepth)`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether a raw request body nests `[`/`{` (outside strings) deeper than
 * `limit`, found by one byte scan before anything parses it: every reader
 * after JSON.parse (fromJson, the dialect rewrites, the store's copies)
 * walks values recursively, so depth has to be bounded before the value
 * exists. Bytes are scanned rather than characters: a UTF-8 multi-byte
 * sequence (or an invalid byte) is never one of the ASCII bytes looked
 * for. Text that is not JSON may pass; JSON.parse refuses it next.
 */
export function exceedsJsonDepth(body: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const b = body[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if ((b === CLOSE_ARRAY || b === CLOSE_OBJECT) && depth > 0) {
      depth--;
    }
  }
  return false;
}
