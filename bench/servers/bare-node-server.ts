/**
 * Baseline (a): the ceiling for any Node HTTP/1.1 JSON API on this machine.
 * It reads and parses a small JSON body and answers a fixed small JSON, with
 * nothing else in the way: no framework, no store, no agent.
 *
 * Prints `READY {"port":n}` once listening on 127.0.0.1.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

const ANSWER = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });
const ANSWER_LENGTH = String(Buffer.byteLength(ANSWER));

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": ANSWER_LENGTH });
    res.end(ANSWER);
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`READY ${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGINT", () => server.close(() => process.exit(0)));
