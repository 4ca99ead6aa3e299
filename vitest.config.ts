import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and child processes; two cores only.
    pool: "forks",
    maxWorkers: 2,
  },
});
