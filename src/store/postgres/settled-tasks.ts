import type { TaskPieces } from "../encoding/index.js";
import type { TaskView } from "../task-store.js";

/** What the settled tasks hold at most, in stored bytes: a burst of answers, not a second copy of the database. */
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

function sizeOf(p: TaskPieces): number {
  let n = p.status.length + (p.metadata?.length ?? 0);
  for (const m of p.history ?? []) n += m.length;
  for (const a of p.artifacts ?? []) {
    n += a.head.length;
    for (const part of a.parts) n += part.length;
  }
  return n;
}

/** The pieces a read with `view` returns, as the task read (task-loader.ts) gives them: none of a kind is undefined. */
export function piecesFor(p: TaskPieces, view: TaskView): TaskPieces {
  const n = view.historyLength;
  const history = n === undefined ? p.history : n <= 0 ? undefined : p.history?.slice(-n);
  const artifacts = view.includeArtifacts === false ? undefined : p.artifacts;
  return { ...p, history: history?.length ? history : undefined, artifacts: artifacts?.length ? artifacts : undefined };
}

/**
 * The whole of each task a unit of this process created and ended,
 * kept from its commit until its first read. A blocking send answers
 * with the task it waited for (§3.2.2), which a unit has just written in
 * full, and a terminal task never changes again (§4.1.3): that answer
 * needs no round trip to read back what was just sent. Each is taken
 * once (later reads go to the database); the oldest go first past a
 * bound in bytes, as do those never read (a send that returned at once).
 */
export class SettledTasks {
  private readonly held = new Map<string, { pieces: TaskPieces; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  get size(): number {
    return this.held.size;
  }

  put(key: string, pieces: TaskPieces): void {
    this.drop(key);
    const bytes = sizeOf(pieces);
    if (bytes > this.maxBytes) return;
    this.held.set(key, { pieces, bytes });
    this.bytes += bytes;
    for (const [k] of this.held) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k);
    }
  }

  /** The task's pieces, once. */
  take(key: string): TaskPieces | undefined {
    const h = this.held.get(key);
    if (h) this.drop(key);
    return h?.pieces;
  }

  drop(key: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    this.bytes -= h.bytes;
  }
}
