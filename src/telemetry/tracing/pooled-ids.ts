import { randomFillSync } from "node:crypto";
import type { IdGenerator } from "@opentelemetry/sdk-trace-node";

/** Random bytes drawn at once; 4 KiB is about 170 calls' worth of ids. */
const POOL_BYTES = 4096;

/**
 * Trace and span ids (W3C Trace Context §3.2.2.3, §3.2.2.4: 16 and 8
 * random bytes, never all zero) cut from a pool of bytes that
 * crypto.randomFillSync refills as it runs out, rather than the SDK's
 * generator, which builds each id from Math.random() four bytes at a time
 * (three ids a traced call; its cost: docs/performance-notes.md).
 */
export class PooledIdGenerator implements IdGenerator {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private at = POOL_BYTES;

  generateTraceId(): string {
    return this.next(16);
  }

  generateSpanId(): string {
    return this.next(8);
  }

  private next(bytes: number): string {
    for (;;) {
      if (this.at + bytes > POOL_BYTES) {
        randomFillSync(this.pool);
        this.at = 0;
      }
      const start = this.at;
      this.at += bytes;
      // All zeros is the invalid id (§3.2.2.3): drawn once in 2^64 at worst, and drawn again.
      for (let i = start; i < start + bytes; i++) if (this.pool[i] !== 0) return this.pool.toString("hex", start, start + bytes);
    }
  }
}
