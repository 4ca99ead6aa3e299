import { parseArgs } from "node:util";

/** What `npm start -- ...` accepts. */
export interface CliOptions {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly publicBaseUrl?: string;
  /** Push delivery settings; see README "Push notifications". */
  readonly push: {
    readonly allowPrivateNetworks: boolean;
    readonly allowCidrs: string[];
    readonly retry?: { baseMs: number; capMs: number; attempts: number };
    readonly timeoutMs?: number;
  };
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0) throw new Error(`${name}: expected a positive whole number, got ${JSON.stringify(text)}`);
  return n;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * Reads `--port <n>` (0 = any free port), `--data <dir>`, `--host <addr>`,
 * `--public-url <url>`, with A2A_HUB_PORT / A2A_HUB_DATA / A2A_HUB_HOST /
 * A2A_HUB_PUBLIC_URL as fallbacks. Throws a message naming the bad option.
 */
export function parseCliOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: "string" },
      data: { type: "string" },
      host: { type: "string" },
      "public-url": { type: "string" },
      insecure: { type: "boolean" },
      "push-allow-private": { type: "boolean" },
      "push-allow-cidr": { type: "string", multiple: true },
    },
    strict: true,
  });
  const portText = values.port ?? env.A2A_HUB_PORT ?? "41241";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new Error(`--port: expected 0..65535, got ${JSON.stringify(portText)}`);
  const host = values.host ?? env.A2A_HUB_HOST ?? "127.0.0.1";
  if (!LOOPBACK.has(host) && !values.insecure) {
    throw new Error(`--host: refusing to bind ${host}, which is not loopback, without --insecure (there is no authentication yet)`);
  }
  const publicBaseUrl = values["public-url"] ?? env.A2A_HUB_PUBLIC_URL;
  if (publicBaseUrl !== undefined && !/^https?:\/\//.test(publicBaseUrl)) throw new Error(`--public-url: expected an http(s) URL, got ${publicBaseUrl}`);
  const allowCidrs = [...(values["push-allow-cidr"] ?? []), ...(env.A2A_HUB_PUSH_ALLOW_CIDRS ?? "").split(",")]
    .map((c) => c.trim())
    .filter((c) => c !== "");
  const baseMs = positiveInt("A2A_HUB_PUSH_RETRY_BASE_MS", env.A2A_HUB_PUSH_RETRY_BASE_MS);
  const attempts = positiveInt("A2A_HUB_PUSH_ATTEMPTS", env.A2A_HUB_PUSH_ATTEMPTS);
  const capMs = positiveInt("A2A_HUB_PUSH_RETRY_CAP_MS", env.A2A_HUB_PUSH_RETRY_CAP_MS);
  const push = {
    allowPrivateNetworks: values["push-allow-private"] === true || env.A2A_HUB_PUSH_ALLOW_PRIVATE === "1",
    allowCidrs,
    retry: baseMs || attempts || capMs ? { baseMs: baseMs ?? 1_000, capMs: capMs ?? 30_000, attempts: attempts ?? 7 } : undefined,
    timeoutMs: positiveInt("A2A_HUB_PUSH_TIMEOUT_MS", env.A2A_HUB_PUSH_TIMEOUT_MS),
  };
  return { port, host, dataDir: values.data ?? env.A2A_HUB_DATA ?? "data", publicBaseUrl, push };
}
