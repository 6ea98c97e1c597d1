// Artifacts shared by processes (one EVALKIT_HOME): the disk budget is the directory's whatever writes to it, and
// no process prunes an artifact a live session in another process still references.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createArtifactStore,
  listArtifacts,
  readArtifact,
} from "../../src/output/artifacts/artifact-store.js";
import { waitFor } from "../helpers/processes.js";
import { TEST_PYTHON } from "../helpers/python.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
let dir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-shared-artifacts-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function startScript(
  name: string,
  args: string[],
): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", fixture(name), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, out: () => text, exited };
}

function artifactBytes(): number {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".out"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

describe("chaos: artifacts shared by processes", () => {
  it("keeps the directory within its budget when three processes write to it at once", async () => {
    const size = 256 * 1024;
    const budget = 1024 * 1024;
    // Each process alone writes 5 MiB; together 15 MiB into a 1 MiB budget.
    const writers = [0, 1, 2].map(() =>
      startScript("artifact-writer-script.ts", [dir, "20", String(size), String(budget)]),
    );
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0, 0]);
    const total = artifactBytes();
    console.log(
      `3 processes wrote ${(3 * 20 * size) / 2 ** 20} MiB; ${total} bytes left for a budget of ${budget}`,
    );
    expect(total).toBeLessThanOrEqual(budget);
    expect(total).toBeGreaterThan(0);
  }, 60_000);

  it("never prunes an artifact that a live session in another process references, until that session ends", async () => {
    const session = startScript("artifact-session-script.ts", [TEST_PYTHON, dir]);
    expect(await waitFor(() => /ARTIFACT \S+/.test(session.out()), 30_000)).toBe(true);
    const uri = /ARTIFACT (\S+)/.exec(session.out())![1]!;
    expect(uri).toMatch(/^artifact:\/\//);
    // This process has a budget of nothing and no grace: everything it may prune, it prunes.
    const store = createArtifactStore({ dir, maxTotalBytes: 0, graceMs: 0, maxAgeMs: 0 });
    expect(store.prune({ force: true }).removed).toEqual([]);
    const page = await readArtifact(uri, { dir, limit: 9 });
    expect(page.text).toBe("line\nline");
    session.child.stdin?.write("dispose\n");
    expect(await waitFor(() => session.out().includes("DISPOSED"), 20_000)).toBe(true);
    expect(store.prune({ force: true }).removed).toEqual([uri.slice("artifact://".length)]);
    expect(listArtifacts({ dir })).toEqual([]);
    session.child.stdin?.end();
    expect(await session.exited).toBe(0);
  }, 60_000);

  it("treats the lease of a process that was killed as stale, and prunes the artifact", async () => {
    const session = startScript("artifact-session-script.ts", [TEST_PYTHON, dir]);
    expect(await waitFor(() => /ARTIFACT \S+/.test(session.out()), 30_000)).toBe(true);
    const id = /ARTIFACT artifact:\/\/(\S+)/.exec(session.out())![1]!;
    const lease = join(dir, ".leases", `${id}.${session.child.pid}`);
    expect(existsSync(lease)).toBe(true);
    const store = createArtifactStore({ dir, maxTotalBytes: 0, graceMs: 0, maxAgeMs: 0 });
    expect(store.prune({ force: true }).removed).toEqual([]);
    session.child.kill("SIGKILL");
    await session.exited;
    expect(store.prune({ force: true }).removed).toEqual([id]);
    expect(existsSync(lease)).toBe(false);
  }, 60_000);
});
