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
 * Writes a text/event-stream response. Writes respect backpressure: `send`
 * resolves once the event is handed to the socket and, when the socket is
 * full, once it has drained, so a slow client slows the producer rather than
 * growing memory. `closed` turns true when the client goes away.
 */
export class SseWriter {
  private readonly keepAliveMs: number;
  private timer: NodeJS.Timeout | undefined;
  private gone = false;
  private ended = false;
  private readonly goneListeners: Array<() => void> = [];

  constructor(
    private readonly req: HttpRequest,
    private readonly res: HttpResponse,
    private readonly options: SseWriterOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? SSE_KEEP_ALIVE_MS;
    res.once("close", () => this.markGone());
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

  /** Writes the 200 response head with the SSE headers and starts the keep-alive. */
  open(): void {
    const headers: Record<string, string> = {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      // Reverse proxies such as nginx would otherwise buffer the stream.
      "x-accel-buffering": "no",
      ...this.options.headers,
    };
    if (!isHttp2(this.req)) headers.connection = "keep-alive";
    (this.res as http.ServerResponse).writeHead(200, headers);
    (this.res as http.ServerResponse).flushHeaders?.();
    this.armKeepAlive();
  }

  /** Writes one event; resolves false when the client is gone and nothing more can be written. */
  send(event: SseEvent): Promise<boolean> {
    let chunk = "";
    if (event.id !== undefined) chunk += `id: ${singleLine(String(event.id))}\n`;
    if (event.event !== undefined) chunk += `event: ${singleLine(event.event)}\n`;
    for (const line of event.data.split(/\r\n|\r|\n/)) chunk += `data: ${line}\n`;
    return this.write(`${chunk}\n`);
  }

  /** Writes a comment line (ignored by clients). */
  comment(text: string): Promise<boolean> {
    return this.write(`: ${singleLine(text)}\n\n`);
  }

  /** Ends the response. */
  close(): void {
    this.ended = true;
    this.goneListeners.length = 0;
    this.stopKeepAlive();
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.armKeepAlive();
    const flushed = (this.res as http.ServerResponse).write(chunk);
    if (flushed) return Promise.resolve(true);
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

  private armKeepAlive(): void {
    if (this.keepAliveMs <= 0) return;
    this.stopKeepAlive();
    this.timer = setTimeout(() => void this.comment("keep-alive"), this.keepAliveMs);
    this.timer.unref();
  }

  private stopKeepAlive(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private markGone(): void {
    if (this.gone || this.ended) return;
    this.gone = true;
    this.stopKeepAlive();
    for (const fn of this.goneListeners.splice(0)) fn();
  }
}

/** Field values must not contain line breaks, or they would start a new field. */
function singleLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}
