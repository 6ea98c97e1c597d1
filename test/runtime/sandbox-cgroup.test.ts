// Kernel cgroups: made with the limits asked for, removed when the kernel ends, stale ones swept at the next start.
import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  createKernelCgroup,
  detectCgroupSupport,
  sweepStaleCgroups,
} from "../../src/runtime/sandbox-cgroup.js";

const support = detectCgroupSupport();
const skipReason = support.kind === "none" ? `(skipped: no cgroup can be made here: ${support.reason})` : "";
if (skipReason) console.warn(`skipping kernel cgroup tests ${skipReason}`);
const isRequired = process.env.EVALKIT_REQUIRE_SANDBOX === "1" && process.getuid?.() === 0;

async function waitGone(dir: string): Promise<boolean> {
  for (let i = 0; i < 50 && existsSync(dir); i++) await new Promise((r) => setTimeout(r, 20));
  return !existsSync(dir);
}

describe("cgroup support", () => {
  it.runIf(isRequired)("is found for root where CI runs the suite", () => {
    expect(support.kind).not.toBe("none");
  });

  it("makes no cgroup when no limit is asked for", () => {
    expect(createKernelCgroup({})).toBeUndefined();
  });
});

describe.skipIf(skipReason !== "")(`kernel cgroups ${skipReason}`, () => {
  it("holds the memory limit with swap included, and a process limit with headroom for the kernel's own tasks", async () => {
    const cgroup = createKernelCgroup({ memoryMb: 128, processes: 5 });
    expect(cgroup).toBeDefined();
    const dirs = (cgroup?.procsFiles ?? []).map((file) => path.dirname(file));
    const read = (dir: string | undefined, file: string) =>
      readFileSync(path.join(dir ?? "", file), "utf8").trim();
    const bytes = String(128 * 1024 * 1024);
    if (support.kind === "v1") {
      expect(read(dirs[0], "memory.limit_in_bytes")).toBe(bytes);
      if (existsSync(path.join(dirs[0] ?? "", "memory.memsw.limit_in_bytes"))) {
        expect(read(dirs[0], "memory.memsw.limit_in_bytes")).toBe(bytes);
      }
      if (support.pids) expect(read(dirs[1], "pids.max")).toBe("37");
    } else {
      expect(read(dirs[0], "memory.max")).toBe(bytes);
    }
    expect(cgroup?.wasOomKilled()).toBe(false);
    cgroup?.remove();
    for (const dir of dirs) expect(await waitGone(dir)).toBe(true);
  });

  it("sweeps an empty cgroup a killed host left behind, and keeps one of a live host", () => {
    const parent = support.kind === "v1" ? support.memory : support.kind === "v2" ? support.parent : "";
    const stale = path.join(parent, "evalkit-999999999-1"); // no such pid: its host is gone
    const live = path.join(parent, `evalkit-${process.ppid}-1`);
    mkdirSync(stale);
    mkdirSync(live);
    try {
      sweepStaleCgroups(parent);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      for (const dir of [stale, live]) if (existsSync(dir)) rmdirSync(dir);
    }
  });
});
