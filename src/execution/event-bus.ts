/**
 * In-process fan-out of a task's live events. Keys always carry tenant,
 * agent and task (never a bare task id). Publishing is synchronous, in the
 * order events were stored, so every subscriber sees the same order (§3.5.2);
 * a throwing listener is removed and cannot disturb the others.
 */
export class EventBus<E> {
  private readonly listeners = new Map<string, Set<(event: E) => void>>();

  /** The bus key of a task. */
  static key(tenant: string, agentId: string, taskId: string): string {
    return `${tenant}\u0000${agentId}\u0000${taskId}`;
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(key: string, listener: (event: E) => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      const s = this.listeners.get(key);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.listeners.delete(key);
    };
  }

  publish(key: string, event: E): void {
    const set = this.listeners.get(key);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        set.delete(listener);
      }
    }
  }

  /** Number of listeners on a key, or on all keys: for leak checks. */
  listenerCount(key?: string): number {
    if (key !== undefined) return this.listeners.get(key)?.size ?? 0;
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}
