// artifact:// resource URIs and reads: paging, notes for the next page, errors with MCP codes.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_RESOURCE_PAGE_BYTES,
  parseArtifactResourceUri,
  RESOURCE_NOT_FOUND,
  readArtifactResource,
  ServerArtifacts,
} from "../../src/mcp/artifact-resources.js";
import { ProtocolError } from "../../src/mcp/protocol-error.js";
import { createArtifactStore } from "../../src/output/artifacts/artifact-store.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "evalkit-mcp-art-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function storeText(text: string): string {
  const writer = createArtifactStore({ dir }).create();
  writer.write(Buffer.from(text));
  writer.close();
  return writer.uri;
}

describe("artifact resources", () => {
  it("parses ids, offsets and limits from the URI", () => {
    expect(parseArtifactResourceUri("artifact://Ab_9-x")).toEqual({
      id: "Ab_9-x",
      offset: 0,
      limit: DEFAULT_RESOURCE_PAGE_BYTES,
    });
    expect(parseArtifactResourceUri("artifact://abc?offset=-10&limit=5")).toEqual({
      id: "abc",
      offset: -10,
      limit: 5,
    });
  });

  it.each([
    ["file:///etc/passwd", /expected artifact:\/\//],
    ["artifact://../x", /expected artifact:\/\//],
    ["artifact://a b", /not an artifact id/],
    ["artifact://abc?limit=0", /limit must be an integer >= 1/],
    ["artifact://abc?offset=1.5", /offset must be an integer/],
    ["artifact://abc?page=2", /unknown query parameter "page"/],
    ["artifact://abc?limit=999999999", /limit must be at most/],
  ])("rejects %s as invalid params", (uri, message) => {
    let error: unknown;
    try {
      parseArtifactResourceUri(uri);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(ErrorCode.InvalidParams);
    expect((error as ProtocolError).message).toMatch(message);
    // The client adds "MCP error -32602: " itself; the message on the wire must not carry it already.
    expect((error as ProtocolError).message).not.toMatch(/MCP error/);
  });

  it("returns the exact page text and a note naming the next page until the end", async () => {
    const uri = storeText("0123456789héllo");
    const first = await readArtifactResource(`${uri}?limit=10`, dir);
    expect(first.contents[0]).toMatchObject({ uri: `${uri}?limit=10`, text: "0123456789" });
    const nextUri = `${uri}?offset=10&limit=10`;
    expect(first.contents[1]).toMatchObject({ uri: nextUri });
    expect((first.contents[1] as { text: string }).text).toContain("bytes 0-10 of 16");
    const second = await readArtifactResource(nextUri, dir);
    expect(second.contents).toHaveLength(1);
    expect((second.contents[0] as { text: string }).text).toBe("héllo");
    expect(second._meta?.["evalkit/page"]).toMatchObject({ offset: 10, totalBytes: 16, nextOffset: null });
  });

  it("answers an unknown id with MCP's resource-not-found code, naming only this server's artifacts", async () => {
    const mine = storeText("mine");
    const theirs = storeText("another project's output");
    const owned = new ServerArtifacts();
    expect(owned.noteResult({ content: [{ type: "text", text: `full output: ${mine}` }] })).toBe(true);
    const error = await readArtifactResource("artifact://missing123", dir, owned).catch((err) => err);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(RESOURCE_NOT_FOUND);
    expect((error as ProtocolError).message).toContain("artifact://missing123");
    expect((error as ProtocolError).message).toContain(mine);
    expect((error as ProtocolError).message).not.toContain(theirs);
    // Another project's artifact is still readable by its URI; it is only left out of listings and hints.
    const read = await readArtifactResource(theirs, dir, owned);
    expect((read.contents[0] as { text: string }).text).toBe("another project's output");
  });

  it("says when this server has stored nothing yet", async () => {
    storeText("someone else's");
    const reading = readArtifactResource("artifact://missing123", dir, new ServerArtifacts());
    await expect(reading).rejects.toThrow(/this server has stored no full output yet/);
  });
});
