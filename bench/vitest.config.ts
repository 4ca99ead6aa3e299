import { defineConfig } from "vitest/config";

export default defineConfig({
  // "a2a-hub" resolves to the hub's sources (its a2a-hub-source condition), as under tsx.
  resolve: { conditions: ["a2a-hub-source"] },
  test: {
    name: "bench",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
