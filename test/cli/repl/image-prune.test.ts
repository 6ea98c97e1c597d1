// evalkit's own images folder stays bounded: expired images and, past the budget, the oldest ones are removed
// before the first image of a run is saved; other files and a folder the user named are left alone.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IMAGE_MAX_AGE_MS, pruneImageDir } from "../../../src/cli/repl/image-prune.js";
import { ImageOutput } from "../../../src/cli/repl/images.js";

const PNG = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
const DAY = 24 * 60 * 60 * 1000;
let dir: string;

/** Writes an image file the way ImageOutput names them, `ageMs` old. */
function writeImage(name: string, ageMs: number, bytes = 10): string {
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.alloc(bytes));
  const when = new Date(Date.now() - ageMs);
  utimesSync(file, when, when);
  return name;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "evalkit-images-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("pruneImageDir", () => {
  it("removes images older than seven days and keeps newer ones and files it did not write", () => {
    const old = writeImage("20261101-101010-42-1.png", IMAGE_MAX_AGE_MS + DAY);
    const recent = writeImage("20261130-101010-42-2.png", DAY);
    writeFileSync(path.join(dir, "notes.txt"), "mine");
    utimesSync(path.join(dir, "notes.txt"), new Date(0), new Date(0));
    expect(pruneImageDir(dir)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", recent].sort());
    expect(existsSync(path.join(dir, old))).toBe(false);
  });

  it("removes the oldest images first while the folder is over its budget, never one younger than the grace", () => {
    writeImage("20261125-000000-1-1.png", 5 * DAY, 100);
    writeImage("20261126-000000-1-1.png", 4 * DAY, 100);
    writeImage("20261127-000000-1-1.png", 3 * DAY, 100);
    writeImage("20261201-000000-1-1.png", 0, 100);
    expect(pruneImageDir(dir, { maxTotalBytes: 150 })).toBe(3);
    expect(readdirSync(dir)).toEqual(["20261201-000000-1-1.png"]);
  });
});

describe("ImageOutput", () => {
  it("prunes evalkit's own folder before it saves, and not a folder the user named", () => {
    const old = writeImage("20261001-000000-7-1.png", IMAGE_MAX_AGE_MS + DAY);
    const named = new ImageOutput({ protocol: undefined, dir });
    expect(named.show("image/png", PNG).kind).toBe("file");
    expect(readdirSync(dir)).toContain(old);
    const managed = new ImageOutput({ protocol: undefined, dir, isManagedDir: true });
    const shown = managed.show("image/png", PNG);
    expect(shown.kind).toBe("file");
    expect(readdirSync(dir)).not.toContain(old);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("creates the folder it prunes when it does not exist yet", () => {
    const fresh = path.join(dir, "images");
    mkdirSync(path.dirname(fresh), { recursive: true });
    const output = new ImageOutput({ protocol: undefined, dir: fresh, isManagedDir: true });
    expect(output.show("image/png", PNG).kind).toBe("file");
    expect(readdirSync(fresh)).toHaveLength(1);
  });
});
