import { afterEach } from "vitest";
import { killAllServers, removeDir, spawnServer, tempDataDir, type ServerProcess } from "./server-process.js";

/**
 * Hub processes of one test file: a test's hubs share one --data
 * directory (a restart finds what the first left), and after each test
 * every hub is killed and the directory removed.
 */
export function testHubs(): { readonly dataDir: () => string; readonly start: (env?: Record<string, string>) => Promise<ServerProcess> } {
  let dir: string | undefined;
  afterEach(async () => {
    await killAllServers();
    removeDir(dir);
    dir = undefined;
  });
  const dataDir = (): string => (dir ??= tempDataDir());
  return { dataDir, start: (env = {}) => spawnServer(dataDir(), { env }) };
}
