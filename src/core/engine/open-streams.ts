/**
 * The streams open now: stop() ends them, metrics read their backlog and
 * leak checks count them. Kept apart because streams are the readers of
 * the bus, not part of running agents.
 */

/** What the engine needs of an open stream. */
export interface OpenStream {
  close(): void;
  /**
   * Events buffered for its reader. A function, not a getter: a getter in
   * the object literal a stream registers with would put a hidden class of
   * its own in V8's old generation for every stream (run-context.ts says
   * what that costs the collector).
   */
  depth?(): number;
  /** Makes its reader catch up from the task's log (wake-ups from other replicas may have been lost). */
  catchUp?(): void;
}

export class OpenStreams {
  private readonly streams = new Set<OpenStream>();

  /** Registers an open stream; returns the function that forgets it. */
  track(stream: OpenStream): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /** Events buffered for stream readers now, in all and for the furthest-behind reader (for metrics). */
  backlog(): { total: number; max: number } {
    let total = 0;
    let max = 0;
    for (const s of this.streams) {
      const d = s.depth?.() ?? 0;
      total += d;
      if (d > max) max = d;
    }
    return { total, max };
  }

  get size(): number {
    return this.streams.size;
  }

  /** Makes every open stream catch up from its task's log. */
  catchUpAll(): void {
    for (const s of this.streams) s.catchUp?.();
  }

  /** Ends every open stream (a stop). */
  closeAll(): void {
    for (const s of [...this.streams]) s.close();
  }
}
