import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCli } from "../../src/cli/index.js";
import { configVariables } from "../helpers/config-variables.js";
import { REPO_ROOT } from "../helpers/server-process.js";

/**
 * compose.yaml (two replicas on PostgreSQL behind nginx) agrees with the hub
 * it runs: the variables it sets are ones the configuration reads and give a
 * valid configuration, and its ports, health checks and start order fit the
 * Containerfile and the balancer's config. No image registry is reachable
 * here, so the file is read, not started; test/operations/container.test.ts runs the image.
 */

interface Service {
  build?: { context: string; dockerfile: string };
  image: string;
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; interval?: string };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}

const compose = parse(readFileSync(join(REPO_ROOT, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const HUBS = ["hub-1", "hub-2"];

/** Compose's `${NAME:-default}` with NAME unset, as on a first `compose up`. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? "");
}

/** The Containerfile's final stage: its ENV defaults, EXPOSE and HEALTHCHECK. */
function containerfile(): { env: Record<string, string>; exposed: number[]; healthcheck: string[] } {
  const text = readFileSync(join(REPO_ROOT, "Containerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const last = text.slice(text.lastIndexOf("\nFROM "));
  const env: Record<string, string> = {};
  for (const line of last.matchAll(/^ENV (.+)$/gm)) for (const [, k, v] of line[1]!.matchAll(/([A-Z0-9_]+)=(\S+)/g)) env[k!] = v!;
  const exposed = [...last.matchAll(/^EXPOSE (\d+)/gm)].map((m) => Number(m[1]));
  const health = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(last);
  return { env, exposed, healthcheck: health ? ["CMD", ...(JSON.parse(health[1]!) as string[])] : [] };
}

/** A mount's host path and its path in the container (`./a:/b:ro`). */
function mounts(service: Service): Array<{ host: string; target: string }> {
  return (service.volumes ?? []).map((v) => v.split(":")).filter((p) => p[0]!.startsWith(".")).map((p) => ({ host: p[0]!, target: p[1]! }));
}

describe("compose.yaml", () => {
  const image = containerfile();
  const nginxMount = mounts(services.lb!).find((m) => m.target === "/etc/nginx/nginx.conf");
  const nginx = nginxMount ? readFileSync(join(REPO_ROOT, nginxMount.host), "utf8") : "";

  it("runs PostgreSQL, two replicas built from the Containerfile, and a balancer", () => {
    expect(Object.keys(services).sort()).toEqual(["hub-1", "hub-2", "lb", "postgres"]);
    for (const hub of HUBS) {
      expect(services[hub]!.build).toEqual({ context: ".", dockerfile: "Containerfile" });
      expect(existsSync(join(REPO_ROOT, services[hub]!.build!.dockerfile))).toBe(true);
      expect(services[hub]!.ports, `${hub} is reached through the balancer only`).toBeUndefined();
    }
  });

  it("gives each replica only variables the hub's configuration reads, and they make a valid configuration of a PostgreSQL fleet", () => {
    const known = configVariables();
    const db = services.postgres!.environment!;
    const lbPort = Number(/^127\.0\.0\.1:(\d+):\d+$/.exec(services.lb!.ports![0]!)?.[1]);
    for (const hub of HUBS) {
      const env = Object.fromEntries(Object.entries(services[hub]!.environment!).map(([k, v]) => [k, interpolate(String(v))]));
      for (const name of Object.keys(env)) expect(known, `${hub} sets ${name}`).toContain(name);
      // The image's variables, then the service's, as the container sees them.
      const parsed = parseCli(["serve"], { ...image.env, ...env });
      if (parsed.command !== "serve") throw new Error(`parsed as ${parsed.command}`);
      const { config } = parsed;
      expect(config.host).toBe("0.0.0.0");
      expect(image.exposed).toEqual([config.port]);
      const store = new URL(config.store!.url);
      expect(store.protocol).toBe("postgres:");
      expect(Object.keys(services)).toContain(store.hostname);
      expect(store.hostname).toBe("postgres");
      expect(Number(store.port)).toBe(5432);
      expect(decodeURIComponent(store.username)).toBe(db.POSTGRES_USER);
      expect(decodeURIComponent(store.password)).toBe(interpolate(db.POSTGRES_PASSWORD!));
      expect(store.pathname).toBe(`/${db.POSTGRES_DB}`);
      // The cards advertise the balancer's published port.
      expect(Number(new URL(config.publicUrl!).port)).toBe(lbPort);
      // Drain, then the 5 s grace for calls in flight, within the time compose gives before SIGKILL.
      const drain = Number(env.A2A_HUB_READINESS_DRAIN_MS);
      expect(drain).toBeGreaterThan(0);
      expect(drain + 5_000).toBeLessThan(Number(/^(\d+)s$/.exec(services[hub]!.stop_grace_period!)?.[1]) * 1000);
    }
  });

  it("starts the replicas once PostgreSQL is ready and the balancer once both replicas are healthy, by the image's own health check", () => {
    const pg = services.postgres!;
    expect(pg.healthcheck!.test).toEqual(["CMD", "pg_isready", "--username", pg.environment!.POSTGRES_USER, "--dbname", pg.environment!.POSTGRES_DB]);
    for (const hub of HUBS) {
      expect(services[hub]!.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
      expect(services[hub]!.healthcheck!.test).toEqual(image.healthcheck);
    }
    expect(services.lb!.depends_on).toEqual(Object.fromEntries(HUBS.map((h) => [h, { condition: "service_healthy" }])));
    // The image's health check asks /readyz, which says 503 while a replica drains or lacks its database.
    expect(image.healthcheck).toEqual(["CMD", "node", "/app/deploy/healthcheck.mjs"]);
    expect(readFileSync(join(REPO_ROOT, "deploy/healthcheck.mjs"), "utf8")).toContain('path: "/readyz"');
  });

  it("balances over both replicas at the port they listen on, gRPC over HTTP/2, on the port it publishes, with the certificate it mounts", () => {
    expect(nginxMount).toBeDefined();
    const hubPort = Number(image.env.A2A_HUB_PORT);
    const upstream = /upstream a2a_fleet \{([^}]*)\}/.exec(nginx)?.[1] ?? "";
    expect([...upstream.matchAll(/server ([\w-]+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`)).toEqual(HUBS.map((h) => `${h}:${hubPort}`));
    expect(nginx).toMatch(/location \/lf\.a2a\.v1\.A2AService\/ \{ grpc_pass grpc:\/\/a2a_fleet;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
    const [, , containerPort] = services.lb!.ports![0]!.split(":");
    expect(nginx).toContain(`listen ${containerPort} ssl`);
    const tls = mounts(services.lb!).find((m) => m.target === "/etc/nginx/tls");
    expect(tls?.host).toBe("./deploy/tls");
    expect(nginx).toContain("ssl_certificate     /etc/nginx/tls/cert.pem;");
    expect(nginx).toContain("ssl_certificate_key /etc/nginx/tls/key.pem;");
    // The certificate is the operator's: never committed, and the how-to says how to make one.
    expect(readFileSync(join(REPO_ROOT, ".gitignore"), "utf8")).toMatch(/^deploy\/tls\/$/m);
    expect(readFileSync(join(REPO_ROOT, "docs/deployment.md"), "utf8")).toContain("-keyout deploy/tls/key.pem -out deploy/tls/cert.pem");
  });
});
