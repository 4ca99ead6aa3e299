import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { HTTP_FAILURES, httpFailureBody, nothingServedAt, sendJson, type HttpRequest, type HttpResponse } from "../bindings/http/index.js";
import { consoleBundle } from "./console-bundle.js";
import { createInspectRoute, INSPECT_CALL_PATH, INSPECT_CARD_PATH, type InspectOptions } from "./inspect/index.js";

/** Where the console is served, on the hub's own port. */
export const CONSOLE_PATH = "/console";

/** The hub's icon, asked for by every browser page load at the root (and linked from the console's page). */
export const FAVICON_PATH = "/favicon.ico";

// A small speech-bubble mark: two agents talking. SVG, so one file serves every size.
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><path d="M7 9h13a3 3 0 0 1 3 3v5a3 3 0 0 1-3 3h-7l-5 4v-4a3 3 0 0 1-1-2v-6a3 3 0 0 1 0-3z" fill="#fff"/><circle cx="24" cy="22" r="4" fill="#9ecbff"/></svg>`;

/** Serves a request under CONSOLE_PATH. */
export type ConsoleRoute = (req: HttpRequest, res: HttpResponse, path: string) => Promise<void>;

const STYLE_FILE = fileURLToPath(new URL("./app/console.css", import.meta.url));

// The page runs only our own script and style; card URLs it probes may be anywhere (http/https).
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http: https:; connect-src 'self' http: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>a2a-hub console</title>
<link rel="stylesheet" href="${CONSOLE_PATH}/console.css">
<link rel="icon" href="${CONSOLE_PATH}/favicon.svg" type="image/svg+xml">
<script type="module" src="${CONSOLE_PATH}/app.js"></script>
</head>
<body>
<noscript>The a2a-hub console needs JavaScript.</noscript>
</body>
</html>
`;

/** What the console needs from the hub beyond its files. */
export interface ConsoleOptions extends InspectOptions {
  /**
   * Whether the caller may use the inspector (which makes requests from the
   * hub): on a hub with tenants, only a caller with a valid token. Answers
   * the refusal itself and returns false when not.
   */
  readonly authorize: (req: HttpRequest, res: HttpResponse) => boolean;
}

/**
 * The web console: its page, its script (bundled on first use) and its
 * style, nothing else. Everything the console shows it gets from the public
 * A2A API and the cards (the hub's card catalog at /v1/a2a/agents), as any
 * browser client would.
 */
export function createConsoleRoute(options: ConsoleOptions): ConsoleRoute {
  let style: Promise<string> | undefined;
  const inspect = createInspectRoute(options);

  return async (req, res, path) => {
    if (path === INSPECT_CARD_PATH || path === INSPECT_CALL_PATH) return options.authorize(req, res) ? inspect(req, res, path) : undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendJson(res, HTTP_FAILURES.methodNotAllowed.httpStatus, httpFailureBody("methodNotAllowed", `${req.method} is not served under ${CONSOLE_PATH}`), { allow: "GET, HEAD" });
    }
    if (path === FAVICON_PATH) return send(req, res, 200, "image/svg+xml", FAVICON, { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" });
    const sub = path.slice(CONSOLE_PATH.length);
    if (sub === "" || sub === "/" || sub === "/index.html") {
      return send(req, res, 200, "text/html; charset=utf-8", PAGE, { ...PAGE_HEADERS, "cache-control": "no-cache" });
    }
    if (sub === "/app.js") {
      const { js, gzip, etag } = await consoleBundle();
      const headers = { etag, "cache-control": "no-cache", "x-content-type-options": "nosniff", vary: "accept-encoding" };
      if (req.headers["if-none-match"] === etag) return send(req, res, 304, undefined, "", headers);
      if (/\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
        return send(req, res, 200, "text/javascript; charset=utf-8", gzip, { ...headers, "content-encoding": "gzip" });
      }
      return send(req, res, 200, "text/javascript; charset=utf-8", js, headers);
    }
    if (sub === "/favicon.svg") return send(req, res, 200, "image/svg+xml", FAVICON, { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" });
    if (sub === "/console.css") {
      style ??= readFile(STYLE_FILE, "utf8");
      return send(req, res, 200, "text/css; charset=utf-8", await style, { "cache-control": "no-cache", "x-content-type-options": "nosniff" });
    }
    sendJson(res, HTTP_FAILURES.notFound.httpStatus, httpFailureBody("notFound", nothingServedAt(req.method, path)));
  };
}

function send(req: HttpRequest, res: HttpResponse, status: number, type: string | undefined, body: string | Buffer, headers: Record<string, string>): void {
  const h: Record<string, string> = { ...headers };
  if (type) {
    h["content-type"] = type;
    h["content-length"] = String(Buffer.byteLength(body));
  }
  (res as import("node:http").ServerResponse).writeHead(status, h);
  if (req.method === "HEAD" || status === 304) res.end();
  else res.end(body);
}
