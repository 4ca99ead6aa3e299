import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { SseWriter, type HttpRequest, type HttpResponse } from "../../../../src/bindings/http/index.js";

/** A response that records what is written and lets the test decide when the socket is full. */
class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  status = 0;
  headers: Record<string, string> = {};
  writableEnded = false;
  full = false;
  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return !this.full;
  }
  end(chunk?: string): void {
    if (chunk) this.chunks.push(chunk);
    this.writableEnded = true;
    this.emit("close");
  }
}

const req = { httpVersionMajor: 1, headers: {} } as unknown as HttpRequest;

function writer(options: { keepAliveMs?: number } = {}) {
  const res = new FakeResponse();
  return { res, sse: new SseWriter(req, res as unknown as HttpResponse, { keepAliveMs: 0, ...options, headers: { "a2a-extensions": "urn:x" } }) };
}

describe("SseWriter", () => {
  it("writes the event-stream head and events in the WHATWG format", async () => {
    const { res, sse } = writer();
    sse.open();
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "a2a-extensions": "urn:x" });
    expect(await sse.send({ id: 7, data: '{"a":1}' })).toBe(true);
    await sse.send({ data: "line one\nline two", event: "note" });
    expect(res.chunks).toEqual(['id: 7\ndata: {"a":1}\n\n', "event: note\ndata: line one\ndata: line two\n\n"]);
  });

  it("waits for drain when the socket is full, and reports a client gone meanwhile", async () => {
    const { res, sse } = writer();
    sse.open();
    res.full = true;
    let done = false;
    const pending = sse.send({ data: "x" }).then((v) => {
      done = true;
      return v;
    });
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    res.emit("drain");
    expect(await pending).toBe(true);
    const gone = vi.fn();
    sse.onClientGone(gone);
    const blocked = sse.send({ data: "y" });
    res.emit("close");
    expect(await blocked).toBe(false);
    expect(gone).toHaveBeenCalledOnce();
    expect(await sse.send({ data: "z" })).toBe(false);
  });

  it("hands the events written in one burst to the response in one write, and says when a full socket drained", async () => {
    const { res, sse } = writer();
    sse.open(false);
    expect(sse.write({ id: 1, data: "a" })).toBe(true);
    await Promise.resolve();
    expect(sse.write({ id: 2, data: "b" })).toBe(true);
    expect(res.chunks).toEqual([]);
    await new Promise((r) => process.nextTick(r));
    expect(res.chunks).toEqual(["id: 1\ndata: a\n\nid: 2\ndata: b\n\n"]);
    res.full = true;
    sse.write({ data: "c" });
    await new Promise((r) => process.nextTick(r));
    expect(sse.write({ data: "d" })).toBe(false);
    const ready = sse.ready();
    res.emit("drain");
    expect(await ready).toBe(true);
    sse.close();
    expect(res.chunks.join("")).toContain("data: d\n\n");
  });

  it("writes a keep-alive comment after each idle period, and stops on close", async () => {
    vi.useFakeTimers();
    try {
      const { res, sse } = writer({ keepAliveMs: 15_000 });
      sse.open();
      await vi.advanceTimersByTimeAsync(14_000);
      expect(res.chunks).toEqual([]);
      await sse.send({ data: "e" });
      await vi.advanceTimersByTimeAsync(14_000);
      expect(res.chunks).toEqual(["data: e\n\n"]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(res.chunks).toEqual(["data: e\n\n", ": keep-alive\n\n"]);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(res.chunks.filter((c) => c.startsWith(":"))).toHaveLength(2);
      sse.close();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(res.chunks.filter((c) => c.startsWith(":"))).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not call client-gone listeners when the server ends the stream", () => {
    const { sse } = writer();
    sse.open();
    const gone = vi.fn();
    sse.onClientGone(gone);
    sse.close();
    expect(gone).not.toHaveBeenCalled();
    expect(sse.closed).toBe(true);
  });
});
