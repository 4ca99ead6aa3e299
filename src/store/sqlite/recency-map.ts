interface Entry<V> {
  readonly key: string;
  value: V;
  older: Entry<V> | undefined;
  newer: Entry<V> | undefined;
}

/**
 * A map that knows its least recently used entry, in O(1): a Map for the
 * lookup and a linked list for the order. A Map alone (delete and set
 * again on each use, evict by iterating from its start) leaves a hole per
 * use at the front of V8's table until it rehashes, and each eviction
 * walked past thousands of them under load.
 */
export class RecencyMap<V> {
  private readonly byKey = new Map<string, Entry<V>>();
  private oldest: Entry<V> | undefined;
  private newest: Entry<V> | undefined;

  get size(): number {
    return this.byKey.size;
  }

  /** The value under `key`, which becomes the most recently used. */
  use(key: string): V | undefined {
    const e = this.byKey.get(key);
    if (!e) return undefined;
    if (e !== this.newest) {
      this.unlink(e);
      this.append(e);
    }
    return e.value;
  }

  /** The value under `key` without a use. */
  peek(key: string): V | undefined {
    return this.byKey.get(key)?.value;
  }

  /** Sets `key`, the most recently used now. */
  set(key: string, value: V): void {
    const e = this.byKey.get(key);
    if (e) {
      e.value = value;
      if (e !== this.newest) {
        this.unlink(e);
        this.append(e);
      }
      return;
    }
    const added: Entry<V> = { key, value, older: undefined, newer: undefined };
    this.byKey.set(key, added);
    this.append(added);
  }

  /** The least recently used value. */
  oldestValue(): V | undefined {
    return this.oldest?.value;
  }

  /** Drops the entry under `key`, if any. */
  delete(key: string): void {
    const e = this.byKey.get(key);
    if (!e) return;
    this.unlink(e);
    this.byKey.delete(key);
  }

  /** Drops the least recently used entry. */
  dropOldest(): void {
    const e = this.oldest;
    if (!e) return;
    this.unlink(e);
    this.byKey.delete(e.key);
  }

  clear(): void {
    this.byKey.clear();
    this.oldest = this.newest = undefined;
  }

  private unlink(e: Entry<V>): void {
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.newest = e.older;
    e.older = e.newer = undefined;
  }

  private append(e: Entry<V>): void {
    e.older = this.newest;
    if (this.newest) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
  }
}
