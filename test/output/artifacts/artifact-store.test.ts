import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../../src/errors.js";
import {
  generateArtifactId,
  parseArtifactId,
  resolveArtifactDir,
} from "../../../src/output/artifacts/artifact-ids.js";
import {
  createArtifactStore,
  listArtifacts,
  readArtifact,
} from "../../../src/output/artifacts/artifact-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalkit-artifacts-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const DAY = 24 * 60 * 60 * 1000;

function writeArtifact(content: string | Buffer, ageMs = 0): string {
  const store = createArtifactStore({ dir });
  const writer = store.create();
  writer.write(typeof content === "string" ? Buffer.from(content) : content);
  writer.close();
  if (ageMs > 0) {
    const when = new Date(Date.now() - ageMs);
    utimesSync(writer.path, when, when);
  }
  return writer.id;
}

/** Puts an artifact file in place without going through a store (so no store prunes on the way). */
function plantArtifact(id: string, content: string, ageMs: number): string {
  const path = join(dir, `${id}.out`);
  writeFileSync(path, content);
  const when = new Date(Date.now() - ageMs);
  utimesSync(path, when, when);
  return id;
}

async function expectError(promise: Promise<unknown>, code: string): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (!isEvalkitError(err)) throw err;
    expect(err.code).toBe(code);
    return { message: err.message, ...err.details };
  }
  throw new Error(`expected ${code}`);
}

describe("artifact ids", () => {
  it("accepts bare ids and artifact:// URIs", () => {
    expect(parseArtifactId("artifact://abc_D-9")).toBe("abc_D-9");
    expect(parseArtifactId("abc")).toBe("abc");
  });

  it("rejects path traversal and other non-id input as INVALID_INPUT naming the id field", async () => {
    for (const bad of ["../x", "artifact://../../etc/passwd", "a/b", "", "..", "a b", "x\0y"]) {
      const details = await expectError(readArtifact(bad, { dir }), "INVALID_INPUT");
      expect(details["field"]).toBe("id");
    }
  });

  it("never starts an id with '-', which a command line would read as an option", () => {
    // With the whole base64url alphabet about one id in 64 started with '-'; 4,000 ids would show it.
    const ids = Array.from({ length: 4000 }, generateArtifactId);
    expect(ids.filter((id) => id.startsWith("-"))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_][A-Za-z0-9_-]{11}$/.test(id))).toBe(true);
    expect(new Set(ids.map((id) => id[0])).size).toBeGreaterThan(40);
  });

  it("lives under $EVALKIT_HOME/artifacts, defaulting to ~/.evalkit", () => {
    expect(resolveArtifactDir({ EVALKIT_HOME: "/srv/ek" })).toBe("/srv/ek/artifacts");
    expect(resolveArtifactDir({})).toMatch(/\.evalkit\/artifacts$/);
  });
});

describe("readArtifact", () => {
  it("reads the whole artifact back byte for byte by default", async () => {
    const bytes = Buffer.from([0x61, 0x80, 0xff, 0x0a, 0x62]);
    const id = writeArtifact(bytes);
    const page = await readArtifact(`artifact://${id}`, { dir });
    expect(Buffer.compare(Buffer.from(page.bytes), bytes)).toBe(0);
    expect(page).toMatchObject({ id, uri: `artifact://${id}`, totalBytes: 5, offset: 0, nextOffset: null });
    expect(page.text).toBe("a\ufffd\ufffd\nb");
  });

  it("pages through an artifact by byte offset and limit until nextOffset is null", async () => {
    const content = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join("");
    const id = writeArtifact(content);
    let offset: number | null = 0;
    let collected = "";
    let pages = 0;
    while (offset !== null) {
      const page = await readArtifact(id, { dir, offset, limit: 1000 });
      expect(page.bytes.length).toBeLessThanOrEqual(1000);
      collected += page.text;
      offset = page.nextOffset;
      pages++;
    }
    expect(collected).toBe(content);
    expect(pages).toBe(Math.ceil(Buffer.byteLength(content) / 1000));
  });

  it("never ends a page inside a UTF-8 character", async () => {
    const id = writeArtifact("ab€cd");
    const first = await readArtifact(id, { dir, limit: 3 });
    expect(first.text).toBe("ab");
    expect(first.nextOffset).toBe(2);
    const second = await readArtifact(id, { dir, offset: 2, limit: 3 });
    expect(second.text).toBe("€");
  });

  it("reads the end of an artifact with a negative offset", async () => {
    const id = writeArtifact("0123456789");
    const page = await readArtifact(id, { dir, offset: -3 });
    expect(page).toMatchObject({ text: "789", offset: 7, nextOffset: null });
  });

  it("reports an unknown id as ARTIFACT_NOT_FOUND listing existing ids", async () => {
    const existing = writeArtifact("x");
    const details = await expectError(readArtifact("nosuchid", { dir }), "ARTIFACT_NOT_FOUND");
    expect(details["known"]).toEqual([existing]);
    expect(String(details["message"])).toContain(existing);
  });

  it("rejects a bad limit naming the field", async () => {
    const id = writeArtifact("x");
    const details = await expectError(readArtifact(id, { dir, limit: 0 }), "INVALID_INPUT");
    expect(details["field"]).toBe("limit");
  });
});

describe("pruning", () => {
  it("removes artifacts older than the maximum age, keeping pinned ones", () => {
    const store = createArtifactStore({ dir, pruneIntervalMs: 60 * 60_000 });
    const old = plantArtifact("old", "old", 8 * DAY);
    const oldPinned = plantArtifact("oldPinned", "old but pinned", 8 * DAY);
    const fresh = plantArtifact("fresh", "fresh", DAY);
    store.pin(oldPinned);
    const result = store.prune({ force: true });
    expect(result.removed).toEqual([old]);
    expect(
      store
        .list()
        .map((a) => a.id)
        .sort(),
    ).toEqual([oldPinned, fresh].sort());
    store.unpin(oldPinned);
    expect(store.prune({ force: true }).removed).toEqual([oldPinned]);
  });

  it("removes the oldest artifacts first until the total size fits, never pinned ones", () => {
    const kb = "x".repeat(1024);
    const oldest = writeArtifact(kb, 5 * 60_000);
    const pinned = writeArtifact(kb, 4 * 60_000);
    const middle = writeArtifact(kb, 3 * 60_000);
    const newest = writeArtifact(kb, 2 * 60_000);
    const store = createArtifactStore({ dir, maxTotalBytes: 2048, pruneIntervalMs: 60 * 60_000 });
    store.pin(pinned);
    const result = store.prune({ force: true });
    expect(result.removed).toEqual([oldest, middle]);
    expect(result.remainingBytes).toBe(2048);
    expect(
      listArtifacts({ dir })
        .map((a) => a.id)
        .sort(),
    ).toEqual([pinned, newest].sort());
    store.unpin(pinned);
  });

  it("never prunes an artifact that is still being written", () => {
    const store = createArtifactStore({ dir, maxTotalBytes: 1, graceMs: 0 });
    const writer = store.create();
    writer.write(Buffer.from("still running"));
    const yesterday = new Date(Date.now() - DAY);
    utimesSync(writer.path, yesterday, yesterday);
    expect(store.prune({ force: true }).removed).toEqual([]);
    // Closing prunes at once (not only once per interval): other processes may have filled the directory.
    writer.close();
    expect(listArtifacts({ dir })).toEqual([]);
  });

  it("prunes when a store is created, at most once per interval", () => {
    const ancient = plantArtifact("ancient", "a", 30 * DAY);
    const store = createArtifactStore({ dir, pruneIntervalMs: 60 * 60_000 });
    expect(store.list().map((a) => a.id)).not.toContain(ancient);
    const second = plantArtifact("second", "b", 30 * DAY);
    createArtifactStore({ dir, pruneIntervalMs: 60 * 60_000 });
    expect(store.list().map((a) => a.id)).toContain(second);
  });

  it("ignores files that are not artifacts", () => {
    writeFileSync(join(dir, "notes.txt"), "keep me");
    const store = createArtifactStore({ dir, maxTotalBytes: 0, graceMs: 0 });
    store.prune({ force: true });
    expect(store.list()).toEqual([]);
    expect(listArtifacts({ dir })).toEqual([]);
  });
});
