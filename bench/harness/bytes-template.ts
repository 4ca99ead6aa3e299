/**
 * A message's bytes as a SQL expression, so that PostgreSQL can write a
 * million of them itself (INSERT ... SELECT over generate_series) instead
 * of receiving each from the bench. The message is encoded once with
 * marker values in its varying fields; each marker is then replaced by a
 * SQL expression giving that field's bytes per row. A marker's bytes and
 * its SQL's bytes must have the same length, or the lengths the encoding
 * wrote before it would be wrong: fixed-width values only (UUIDs,
 * zero-padded numbers, varints of a fixed number of bytes).
 */

/** A field that varies per row: the bytes it has in the template message, and the SQL (bytea) of the same width that gives it. */
export interface TemplateSlot {
  readonly marker: Uint8Array;
  readonly sql: string;
}

function hexLiteral(bytes: Uint8Array): string {
  return `'\\x${Buffer.from(bytes).toString("hex")}'::bytea`;
}

/**
 * `bytes` as a SQL bytea expression: literal pieces and the slots' SQL in
 * between, wherever a slot's marker occurs (a message need not hold every
 * slot). Throws when two markers overlap: the template would not be the
 * message.
 */
export function sqlTemplate(bytes: Uint8Array, slots: readonly TemplateSlot[]): string {
  const buf = Buffer.from(bytes);
  const found: Array<{ at: number; slot: TemplateSlot }> = [];
  for (const slot of slots) {
    let at = buf.indexOf(slot.marker);
    while (at >= 0) {
      found.push({ at, slot });
      at = buf.indexOf(slot.marker, at + slot.marker.length);
    }
  }
  found.sort((a, b) => a.at - b.at);
  const pieces: string[] = [];
  let next = 0;
  for (const { at, slot } of found) {
    if (at < next) throw new Error("bytes template: two markers overlap in the message");
    if (at > next) pieces.push(hexLiteral(buf.subarray(next, at)));
    pieces.push(`(${slot.sql})`);
    next = at + slot.marker.length;
  }
  if (next < buf.length) pieces.push(hexLiteral(buf.subarray(next)));
  return pieces.length ? pieces.join(" || ") : `'\\x'::bytea`;
}

/** A protobuf varint of exactly five bytes (values from 2^28 to 2^35 - 1), as bytes. */
export function varint5(value: bigint): Uint8Array {
  if (value < 2n ** 28n || value >= 2n ** 35n) throw new Error(`varint5: ${value} is not five bytes long`);
  const out = new Uint8Array(5);
  for (let k = 0; k < 5; k++) out[k] = Number((value >> BigInt(7 * k)) & 127n) | (k < 4 ? 128 : 0);
  return out;
}

/** The SQL function `varint5` defines for a session: the same five bytes from a bigint. */
export const VARINT5_SQL = `CREATE FUNCTION pg_temp.varint5(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT set_byte(set_byte(set_byte(set_byte(set_byte('\\x0000000000'::bytea,
    0, ((v & 127) | 128)::integer), 1, (((v >> 7) & 127) | 128)::integer), 2, (((v >> 14) & 127) | 128)::integer),
    3, (((v >> 21) & 127) | 128)::integer), 4, (v >> 28)::integer)
$$`;
