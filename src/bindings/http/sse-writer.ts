import type * as http from "node:http";
import { isHttp2, type HttpRequest, type HttpResponse } from "./http-exchange.js";

/** How often an idle stream gets a comment line, so proxies keep it open (ms). */
export const SSE_KEEP_ALIVE_MS = 15_000;

/** One Server-Sent Event (WHATWG HTML §9.2.6 event stream format). */
export interface SseEvent {
  /** The event id: clients send the last one back as Last-Event-ID when they reconnect. */
  readonly id?: string | number;
  readonly event?: string;
  readonly data: string;
}

/** Options of an SSE response. */
export interface SseWriterOptions {
  /** Idle time after which a comment line is written; 0 disables it. Default 15 s. */
  readonly keepAliveMs?: number;
  /** Extra response headers (e.g. A2A-Extensions). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Writes a text/event-stream response. `send` hands each event to the
 * response at once; `write` adds it to the current burst, which is handed
 * over in one write once the turn's microtasks are done, so a commit of 16
 * events costs one chunk on the wire, not 16. Writes respect backpressure:
 * once the response's buffer is full `write` returns false and `ready()`
 * (which `send` returns) resolves when it has drained, so a slow client
 * slows the producer rather than growing memory. `closed` turns true when
 * the client goes away.
 */
export class SseWriter {
  private readonly keepAliveMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** When the last event or comment was written (ms): the keep-alive counts idle time from it. */
  private lastWriteAt = 0;
  private gone = false;
  private ended = false;
  private readonly goneListeners: Array<() => void> = [];
  /** The burst not yet handed to the response. */
  private pending = "";
  /** The response's buffer is full: writers wait for "drain". */
  private blocked = false;

  constructor(
    private readonly req: HttpRequest,
    private readonly res: HttpResponse,
    private readonly options: SseWriterOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? SSE_KEEP_ALIVE_MS;
    res.once("close", () => this.markGone());
    res.on("drain", () => (this.blocked = false));
  }

  /** True once the response is ended or the client disconnected. */
  get closed(): boolean {
    return this.gone || this.ended || this.res.writableEnded;
  }

  /** Runs `fn` once if the client goes away before `close()` ended the stream. */
  onClientGone(fn: () => void): void {
    if (this.gone) fn();
    else if (!this.ended) this.goneListeners.push(fn);
  }

  /**
   * Writes the 200 response head with the SSE headers and starts the
   * keep-alive. With `flush` false the head waits for the first event, so
   * both leave in one packet (the caller has that event in hand).
   */
  open(flush = true): void {
    const headers: Record<string, string> = {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      // Reverse proxies such as nginx would otherwise buffer the stream.
      "x-accel-buffering": "no",
      ...this.options.headers,
    };
    if (!isHttp2(this.req)) headers.connection = "keep-alive";
    (this.res as http.ServerResponse).writeHead(200, headers);
    if (flush) (this.res as http.ServerResponse).flushHeaders?.();
    this.lastWriteAt = Date.now();
    this.armKeepAlive(this.keepAliveMs);
  }

  /**
   * Writes one event into the current burst. Returns true when the writer
   * may go on at once; false when the client is gone or its buffer is full,
   * and then `ready()` says when (and whether) to go on.
   */
  write(event: SseEvent): boolean {
    return this.append(frame(event), false);
  }

  /** Resolves true once the writer may go on (the response drained), false once the client is gone. */
  ready(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (!this.blocked) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (): void => {
        this.res.off("drain", done);
        this.res.off("close", done);
        resolve(!this.closed);
      };
      this.res.on("drain", done);
      this.res.on("close", done);
    });
  }

  /** Writes one event; resolves once the writer may go on, false when the client is gone and nothing more can be written. */
  send(event: SseEvent): Promise<boolean> {
    return this.append(frame(event), true) ? Promise.resolve(true) : this.ready();
  }

  /** Writes a comment line (ignored by clients). */
  comment(text: string): Promise<boolean> {
    return this.append(`: ${singleLine(text)}\n\n`, true) ? Promise.resolve(true) : this.ready();
  }

  /** Ends the response, after what the current burst holds. */
  close(): void {
    this.ended = true;
    this.goneListeners.length = 0;
    this.stopKeepAlive();
    const rest = this.pending;
    this.pending = "";
    if (!this.res.writableEnded) {
      if (rest && !this.gone) this.res.end(rest);
      else this.res.end();
    }
  }

  /** Adds `chunk` to the burst; `now` hands the burst to the response at once. */
  private append(chunk: string, now: boolean): boolean {
    if (this.closed) return false;
    this.lastWriteAt = Date.now();
    // The first event of a burst schedules its write; a nextTick queued
    // from a microtask runs once the microtasks of the turn are done.
    if (this.pending === "" && !now) process.nextTick(() => this.flush());
    this.pending += chunk;
    if (now) this.flush();
    return !this.blocked;
  }

  private flush(): void {
    const burst = this.pending;
    this.pending = "";
    if (!burst || this.closed) return;
    if (!(this.res as http.ServerResponse).write(burst)) this.blocked = true;
  }

  /** One timer per stream, re-armed when it fires rather than on every write. */
  private armKeepAlive(ms: number): void {
    if (this.keepAliveMs <= 0) return;
    this.timer = setTimeout(() => this.keepAlive(), ms);
    this.timer.unref();
  }

  private keepAlive(): void {
    this.timer = undefined;
    if (this.closed) return;
    const idle = Date.now() - this.lastWriteAt;
    if (idle >= this.keepAliveMs) {
      void this.comment("keep-alive");
      this.armKeepAlive(this.keepAliveMs);
    } else {
      this.armKeepAlive(this.keepAliveMs - idle);
    }
  }

  private stopKeepAlive(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private markGone(): void {
    if (this.gone || this.ended) return;
    this.gone = true;
    this.pending = "";
    this.stopKeepAlive();
    for (const fn of this.goneListeners.splice(0)) fn();
  }
}

/** One event in the event stream format: its fields, a data line per line of data, a blank line. */
function frame(event: SseEvent): string {
  let chunk = "";
  if (event.id !== undefined) chunk += `id: ${singleLine(String(event.id))}\n`;
  if (event.event !== undefined) chunk += `event: ${singleLine(event.event)}\n`;
  const data = event.data;
  // JSON text has no raw line breaks: the common case is one data line.
  if (data.indexOf("\n") < 0 && data.indexOf("\r") < 0) chunk += `data: ${data}\n`;
  else for (const line of data.split(/\r\n|\r|\n/)) chunk += `data: ${line}\n`;
  return `${chunk}\n`;
}

/** Field values must not contain line breaks, or they would start a new field. */
function singleLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}
