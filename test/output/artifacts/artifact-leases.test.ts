import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dropLease, leasedIds, takeLease } from "../../../src/output/artifacts/artifact-leases.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-leases-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function plantLease(id: string, pid: number, token: string): string {
  mkdirSync(join(dir, ".leases"), { recursive: true });
  const path = join(dir, ".leases", `${id}.${pid}`);
  writeFileSync(path, token);
  return path;
}

function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

describe("artifact leases", () => {
  it("records this process's lease on disk until it is dropped", () => {
    takeLease(dir, "abc");
    expect(existsSync(join(dir, ".leases", `abc.${process.pid}`))).toBe(true);
    expect(leasedIds(dir)).toEqual(new Set(["abc"]));
    dropLease(dir, "abc");
    expect(leasedIds(dir)).toEqual(new Set());
  });

  it("counts a lease of another live process and removes one whose process is gone", () => {
    plantLease("live", process.ppid, "");
    const stale = plantLease("gone", 2 ** 22 + 12345, "");
    expect(leasedIds(dir)).toEqual(new Set(["live"]));
    expect(existsSync(stale)).toBe(false);
  });

  it.skipIf(process.platform !== "linux")(
    "treats a lease as stale when its pid now belongs to a process that started later",
    () => {
      const reused = plantLease("reused", process.ppid, String(Number(startTicks(process.ppid)) - 1));
      plantLease("same", process.ppid, startTicks(process.ppid));
      expect(leasedIds(dir)).toEqual(new Set(["same"]));
      expect(existsSync(reused)).toBe(false);
    },
  );

  it("ignores files in the lease directory that are not leases", () => {
    plantLease("x", process.ppid, "");
    writeFileSync(join(dir, ".leases", "notes.txt"), "keep");
    writeFileSync(join(dir, ".leases", ".12"), "");
    expect(leasedIds(dir)).toEqual(new Set(["x"]));
    expect(existsSync(join(dir, ".leases", "notes.txt"))).toBe(true);
  });
});
