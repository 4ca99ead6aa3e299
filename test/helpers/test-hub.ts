import { afterAll, beforeAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { silentLogger } from "../../src/core/index.js";
import { startHub, type Hub, type HubOptions } from "../../src/server/index.js";
import { connectNodeTransport, type ConnectNodeBinding } from "./hub-clients.js";

/** A connect-node transport's name (hub-clients.ts is the one harness over every binding). */
export type TransportName = ConnectNodeBinding;

/** A real hub on an ephemeral loopback port with its own data directory. */
export interface TestHub {
  readonly hub: Hub;
  readonly url: string;
  readonly dataDir: string;
  /** A connect-node client of the A2A service over one transport. */
  client(name: TransportName): Client<typeof A2AService>;
  transport(name: TransportName): Transport;
  /** Stops the hub and removes its data. */
  stop(): Promise<void>;
}

/** Starts a hub on 127.0.0.1:0 in a fresh temp directory. */
export async function startTestHub(options: HubOptions = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "a2a-hub-test-"));
  const hub = await startHub({ logger: silentLogger, ...options, port: 0, host: "127.0.0.1", dataDir });
  const baseUrl = hub.url.replace(/\/$/, "");
  const transports = new Map<TransportName, Transport>();
  const transport = (name: TransportName): Transport => {
    let t = transports.get(name);
    if (!t) {
      t = connectNodeTransport(baseUrl, name);
      transports.set(name, t);
    }
    return t;
  };
  return {
    hub,
    url: hub.url,
    dataDir,
    transport,
    client: (name) => createClient(A2AService, transport(name)),
    stop: async () => {
      await hub.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A test hub started before the file's tests and stopped after them; read it as `.hub` inside the tests. */
export function withTestHub(options: HubOptions = {}): { readonly hub: TestHub } {
  const state = {} as { hub: TestHub };
  beforeAll(async () => {
    state.hub = await startTestHub(options);
  });
  afterAll(async () => {
    await state.hub.stop();
  });
  return state;
}
