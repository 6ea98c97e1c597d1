// The bundle loader keeps V8's compiled code of a bundle in $EVALKIT_HOME/cache/node-code: written by the first
// process, used by the next, never shared with another build, and never taken from a directory others can write.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../helpers/build.js";

const LOADER = pathToFileURL(path.join(ROOT, "dist", "boot", "load-bundle.js")).href;

let work: string;
let home: string;
let bundle: string;

/** Loads `bundle` in a fresh Node process; returns what its export computed and how the cache was used. */
function load(env: Record<string, string> = {}): { value: unknown; use: string } {
  const script = `
    import { loadBundle, codeCacheUses } from ${JSON.stringify(LOADER)};
    const exports = loadBundle(${JSON.stringify(bundle)}, "test");
    console.log(JSON.stringify({ value: exports.compute(), use: codeCacheUses.get(${JSON.stringify(bundle)}) }));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, EVALKIT_HOME: home, NODE_DISABLE_COMPILE_CACHE: "", ...env },
    timeout: 30_000,
  });
  if (child.status !== 0) throw new Error(`loader exited ${child.status}: ${child.stderr}`);
  return JSON.parse(child.stdout) as { value: unknown; use: string };
}

function cacheFiles(): string[] {
  const dir = path.join(home, "cache", "node-code");
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".v8"));
  } catch {
    return [];
  }
}

function writeBundle(body: string): void {
  writeFileSync(bundle, `${body}\n`);
}

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "evalkit-load-bundle-"));
  home = path.join(work, "home");
  bundle = path.join(work, "bundle.cjs");
  writeBundle(
    "const path = require('node:path');\nexports.compute = () => [path.basename(__filename), 6 * 7, (function () { return typeof this; })()];",
  );
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("loadBundle", () => {
  it("runs a CommonJS bundle with require, __filename and strict mode", () => {
    expect(load().value).toEqual(["bundle.cjs", 42, "undefined"]);
  });

  it("writes the compiled code on the first run and uses it on the next", () => {
    expect(load().use).toBe("written");
    const files = cacheFiles();
    expect(files).toHaveLength(1);
    const dir = path.join(home, "cache", "node-code");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, files[0] ?? "")).mode & 0o777).toBe(0o600);
    expect(load()).toEqual({ value: ["bundle.cjs", 42, "undefined"], use: "used" });
  });

  it("never meets the cache of another build of the bundle, and drops the old one", () => {
    load();
    const [first] = cacheFiles();
    // Same length, different code: V8 itself would only compare the length.
    writeBundle(
      "const path = require('node:path');\nexports.compute = () => [path.basename(__filename), 7 * 6, (function () { return typeof this; })()];",
    );
    utimesSync(bundle, new Date(), new Date(Date.now() + 5000));
    expect(load().use).toBe("written");
    expect(cacheFiles()).not.toContain(first);
    expect(cacheFiles()).toHaveLength(1);
  });

  it("compiles as usual from a corrupt cache and replaces it", () => {
    load();
    const [file] = cacheFiles();
    writeFileSync(path.join(home, "cache", "node-code", file ?? ""), "not a code cache");
    expect(load()).toEqual({ value: ["bundle.cjs", 42, "undefined"], use: "rejected" });
    expect(load().use).toBe("used");
  });

  it("uses no cache in a directory that others can write", () => {
    const dir = path.join(home, "cache", "node-code");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    expect(load()).toEqual({ value: ["bundle.cjs", 42, "undefined"], use: "off" });
    expect(cacheFiles()).toEqual([]);
  });

  it("uses no cache when NODE_DISABLE_COMPILE_CACHE is set", () => {
    expect(load({ NODE_DISABLE_COMPILE_CACHE: "1" }).use).toBe("off");
    expect(cacheFiles()).toEqual([]);
  });

  it("still runs the bundle when the home cannot hold a cache", () => {
    writeFileSync(home, "a file where the home should be");
    expect(load()).toEqual({ value: ["bundle.cjs", 42, "undefined"], use: "off" });
  });
});
