import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The hub's suite, and the bench's (its own package: bench/vitest.config.ts), in one run.
    projects: [{ extends: true, test: { name: "a2a-hub", include: ["test/**/*.test.ts"] } }, "bench"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and child processes; two cores only.
    pool: "forks",
    maxWorkers: 2,
  },
});
