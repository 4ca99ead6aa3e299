import { defineConfig } from "vitest/config";

export default defineConfig({
  // "a2a-hub" resolves to the hub's sources (its a2a-hub-source condition), as under tsx. Tests
  // run in Node, which Vite resolves for as a server: the condition is set there too, with Node's
  // own (not "module", which picks bundler-only builds such as @opentelemetry/api's esm/).
  resolve: { conditions: ["a2a-hub-source"] },
  ssr: { resolve: { conditions: ["a2a-hub-source", "node"] } },
  test: {
    name: "bench",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
