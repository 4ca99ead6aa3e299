/**
 * Several encoded rows of one kind kept as one SQLite row: a run of events
 * of one task (a seq range), or of appended parts of one artifact (an
 * index range), written by one unit of work. A streaming agent's chunks,
 * 32 to a commit, then cost one B-tree insert instead of 32 (each about as
 * dear as the write it carries), and a SendMessage's four events one.
 *
 * The format: `n` = 1 is the row's bytes as they are, which is what every
 * row was before rows were packed, so old databases read unchanged; `n` > 1
 * is each row preceded by its length as a protobuf varint, the framing of
 * a length-delimited field without its tag.
 */

/** Where a run keeps its rows until it is written: grown by doubling, and reused once written (`PackedRuns`). */
const INITIAL_BYTES = 512;
/** A run that grew past this is let go once written rather than kept for the next. */
const KEPT_BYTES = 64 * 1024;
/** How many written runs are kept for reuse. */
const KEPT_RUNS = 256;

/**
 * Rows packed as they come, into a buffer of the run's own. The rows are
 * copied in at once rather than held until the transaction ends: a held
 * row (a typed array over memory outside the JS heap, or a view keeping a
 * whole event's) would outlive a scavenge or two and be promoted, and
 * such memory goes back only at a full collection; under a fast stream it
 * piled up by tens of MiB.
 */
export class PackedRun {
  private buf = new Uint8Array(INITIAL_BYTES);
  private pos = 0;
  /** Where the first row's bytes begin (after its length). */
  private firstAt = 0;
  /** Rows packed. */
  n = 0;
  /** The key of the first row (a seq, a part index). */
  first = 0;

  /** Adds a row (copied). */
  add(row: Uint8Array): void {
    let length = row.length;
    this.reserve(5 + length);
    const buf = this.buf;
    while (length > 0x7f) {
      buf[this.pos++] = (length & 0x7f) | 0x80;
      length >>>= 7;
    }
    buf[this.pos++] = length;
    if (this.n === 0) this.firstAt = this.pos;
    buf.set(row, this.pos);
    this.pos += row.length;
    this.n++;
  }

  /** The value to store beside `n`: a view of the run, valid until it is reset. */
  value(): Uint8Array {
    return this.n === 1 ? this.buf.subarray(this.firstAt, this.pos) : this.buf.subarray(0, this.pos);
  }

  /** The rows, copied out: the run's buffer is reused once it is written, and a decoded message keeps views of its bytes. */
  rows(): Uint8Array[] {
    return this.n === 0 ? [] : unpackRows(this.value(), this.n).map((row) => row.slice());
  }

  /** Starts the run over at `first`. */
  reset(first: number): this {
    this.pos = 0;
    this.n = 0;
    this.first = first;
    return this;
  }

  /** Whether the run is small enough to keep for reuse. */
  get keepable(): boolean {
    return this.buf.length <= KEPT_BYTES;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }
}

/** Runs by key, open while a transaction is; written runs are reused, so packing allocates next to nothing per row. */
export class PackedRuns<K> {
  private readonly open = new Map<K, PackedRun>();
  private readonly spare: PackedRun[] = [];

  get size(): number {
    return this.open.size;
  }

  get(key: K): PackedRun | undefined {
    return this.open.get(key);
  }

  /** A fresh run for `key` starting at `first` (replacing any open one: close it first if it must be written). */
  start(key: K, first: number): PackedRun {
    const run = (this.spare.pop() ?? new PackedRun()).reset(first);
    this.open.set(key, run);
    return run;
  }

  /** Closes the run of `key` (after it was written, or to drop it). */
  close(key: K): void {
    const run = this.open.get(key);
    if (!run) return;
    this.open.delete(key);
    this.recycle(run);
  }

  /** Every open run, with its key. */
  entries(): IterableIterator<[K, PackedRun]> {
    return this.open.entries();
  }

  /** Closes every run (after they were written, or to drop them). */
  closeAll(): void {
    for (const run of this.open.values()) this.recycle(run);
    this.open.clear();
  }

  private recycle(run: PackedRun): void {
    if (run.keepable && this.spare.length < KEPT_RUNS) this.spare.push(run);
  }
}

/** The `n` rows packed in `bytes`, as views of it. Throws when they do not add up: the value is not what a PackedRun wrote. */
export function unpackRows(bytes: Uint8Array, n: number): Uint8Array[] {
  if (n === 1) return [bytes];
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    let length = 0;
    let shift = 0;
    let b: number;
    do {
      if (pos >= bytes.length || shift > 28) throw new Error("packed rows: a length runs past the end of the value");
      b = bytes[pos++]!;
      length += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    if (pos + length > bytes.length) throw new Error("packed rows: a row runs past the end of the value");
    out.push(bytes.subarray(pos, pos + length));
    pos += length;
  }
  if (out.length !== n) throw new Error(`packed rows: ${out.length} rows where the row says ${n}`);
  return out;
}
