// Layers import only downward (docs/architecture.md); this test fails when a lower layer reaches up.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

/** Higher rank = higher layer. A file may import its own layer or any lower rank. */
const RANK: Record<string, number> = {
  cli: 9,
  mcp: 8,
  integrations: 8,
  tool: 7,
  session: 6,
  kernel: 5,
  protocol: 4.5,
  runtime: 4,
  output: 3,
  render: 2,
  contracts: 1,
  text: 0.5,
  "errors.ts": 0,
  "index.ts": 10,
  boot: 11,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function layerOf(file: string): string {
  return relative(SRC, file).split(sep)[0] ?? "";
}

describe("architecture", () => {
  it("knows the layer of every source file", () => {
    const unknown = sourceFiles(SRC).filter((file) => RANK[layerOf(file)] === undefined);
    expect(unknown).toEqual([]);
  });

  it("has no import from a lower layer into a higher one", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(
        /(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
      )) {
        const spec = match[1] ?? match[2];
        if (!spec) continue;
        const target = resolve(file, "..", spec);
        if (!target.startsWith(SRC)) continue;
        const to = layerOf(target.replace(/\.js$/, ".ts"));
        if ((RANK[to] ?? 99) > (RANK[from] ?? -1))
          violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps the kernel's folders in their order: runtimes over process over client over wire", () => {
    // Inside kernel/: one folder per runtime (python, js, jupyter, runtimes) over the process and transport parts,
    // the one client (which knows no process), the wire codec, and the contract kernel.ts at the bottom.
    // Runtimes never import one another: what they share lives below them.
    const KERNEL = join(SRC, "kernel");
    const folderOf = (file: string) => relative(KERNEL, file).split(sep)[0] ?? "";
    const rank: Record<string, number> = { "kernel.ts": 0, wire: 1, client: 2, process: 3 };
    const rankOf = (folder: string) => rank[folder] ?? 4;
    const violations: string[] = [];
    const kernelFiles = sourceFiles(KERNEL);
    expect(new Set(kernelFiles.map(folderOf))).toEqual(
      new Set(["kernel.ts", "wire", "client", "process", "python", "js", "jupyter", "runtimes"]),
    );
    for (const file of kernelFiles) {
      const from = folderOf(file);
      for (const match of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']/g)) {
        const target = resolve(file, "..", match[1] ?? "").replace(/\.js$/, ".ts");
        if (!target.startsWith(KERNEL)) continue;
        const to = folderOf(target);
        const isUp = rankOf(to) > rankOf(from) || (rankOf(to) === 4 && to !== from);
        if (isUp) violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps output in its three folders: streams over artifacts, display on its own", () => {
    // streams/ (the sink, its window, redaction, the retained budget) spills to artifacts/ (the store and its
    // files); display/ (bundles, HTML, images, charts) stands alone; nothing sits loose at output/'s root.
    const OUTPUT = join(SRC, "output");
    const folderOf = (file: string) => relative(OUTPUT, file).split(sep)[0] ?? "";
    const allowed: Record<string, string[]> = { streams: ["artifacts"], artifacts: [], display: [] };
    const files = readdirSync(OUTPUT, { withFileTypes: true });
    expect(files.filter((entry) => !entry.isDirectory()).map((entry) => entry.name)).toEqual([]);
    expect(new Set(files.map((entry) => entry.name))).toEqual(new Set(Object.keys(allowed)));
    const violations: string[] = [];
    for (const file of sourceFiles(OUTPUT)) {
      const from = folderOf(file);
      for (const match of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']/g)) {
        const target = resolve(file, "..", match[1] ?? "");
        if (!target.startsWith(OUTPUT)) continue;
        const to = folderOf(target);
        if (to !== from && !allowed[from]?.includes(to))
          violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps the render and output layers free of process work", () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => ["render", "output"].includes(layerOf(file)))
      .filter((file) =>
        /from\s+["']node:(child_process|worker_threads|cluster)["']/.test(readFileSync(file, "utf8")),
      );
    expect(offenders).toEqual([]);
  });
});
