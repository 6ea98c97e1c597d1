// Test runner settings: real processes are spawned, so give tests room and run files in parallel forks.
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine, so every file ran
    // after the other while most of them wait on the kernels they start. Four files at once keep two cores busy.
    maxWorkers: Math.max(4, availableParallelism()),
    reporters: ["default"],
  },
});
