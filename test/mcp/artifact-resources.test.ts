// artifact:// resource URIs and reads: paging, notes for the next page, errors with MCP codes.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_RESOURCE_PAGE_BYTES,
  parseArtifactResourceUri,
  RESOURCE_NOT_FOUND,
  readArtifactResource,
} from "../../src/mcp/artifact-resources.js";
import { createArtifactStore } from "../../src/output/artifact-store.js";

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
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toMatch(message);
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

  it("answers an unknown id with MCP's resource-not-found code", async () => {
    const error = await readArtifactResource("artifact://missing123", dir).catch((err) => err);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(RESOURCE_NOT_FOUND);
    expect((error as McpError).message).toContain("artifact://missing123");
  });
});
