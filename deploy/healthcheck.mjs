// The image's HEALTHCHECK: GET /readyz on the hub's port inside the container, exit 0 on 200.
// With A2A_HUB_TLS_CERT set the port speaks TLS: the probe asks over HTTPS without checking the
// certificate (it asks itself on loopback; whether clients trust the certificate is theirs to check).
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

const tls = Boolean(process.env.A2A_HUB_TLS_CERT);
const port = Number(process.env.A2A_HUB_PORT || 41241);
const request = tls ? httpsRequest : httpRequest;
const req = request({ host: "127.0.0.1", port, path: "/readyz", timeout: 4000, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on("timeout", () => req.destroy(new Error("timed out")));
req.on("error", (e) => {
  process.stderr.write(`healthcheck: ${e.message}\n`);
  process.exit(1);
});
req.end();
