// `evalkit mcp` output: truncated outputs readable in full as artifact:// resources, matplotlib figures as images.
import path from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/output/artifacts/artifact-store.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { buildCli, callEval, closeServers, DEBIAN_PYTHON, startServer, textOf } from "./mcp-helpers.js";

beforeAll(buildCli, 120_000);
afterAll(closeServers);

const LINES = 300_000;
const expectedOutput = () =>
  Array.from({ length: LINES }, (_, i) => `row ${String(i).padStart(6, "0")}\n`).join("");

describe("evalkit mcp resources", () => {
  it("serves a truncated output in full as an artifact:// resource, by page", async () => {
    const server = await startServer();
    const foreign = createArtifactStore({ dir: path.join(server.home, "artifacts") }).create();
    foreign.write(Buffer.from("another project's output"));
    foreign.close();
    const result = await callEval(server.client, [
      { code: `for i in range(${LINES}):\n    print('row %06d' % i)`, timeout: 120 },
    ]);
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThan(100 * 1024);
    const uri = /artifact:\/\/[A-Za-z0-9_-]+/.exec(text)?.[0];
    expect(uri).toBeDefined();
    const expected = expectedOutput();

    const { resources } = await server.client.listResources();
    // Only this server's artifact: the one another project left in the shared store is not listed.
    expect(resources).toHaveLength(1);
    expect(resources[0]).toMatchObject({ uri, mimeType: "text/plain", size: Buffer.byteLength(expected) });

    const first = await server.client.readResource({ uri: uri! });
    expect(first.contents[0]).toMatchObject({ uri, mimeType: "text/plain" });
    const firstText = (first.contents[0] as { text: string }).text;
    expect(firstText.length).toBe(64 * 1024);
    expect(expected.startsWith(firstText)).toBe(true);
    const page = first._meta?.["evalkit/page"] as { totalBytes: number; nextOffset: number; nextUri: string };
    expect(page).toMatchObject({ totalBytes: expected.length, nextOffset: 64 * 1024 });
    expect(first.contents[1]).toMatchObject({ uri: page.nextUri });
    expect((first.contents[1] as { text: string }).text).toContain(page.nextUri);

    const tail = await server.client.readResource({ uri: `${uri}?offset=-24` });
    expect((tail.contents[0] as { text: string }).text).toBe(expected.slice(-24));
    expect(tail.contents).toHaveLength(1);

    const whole = await server.client.readResource({ uri: `${uri}?offset=0&limit=16777216` });
    expect((whole.contents[0] as { text: string }).text).toBe(expected);
  });

  it("answers an unknown artifact with a resource-not-found error and keeps serving", async () => {
    const server = await startServer();
    const error = await server.client.readResource({ uri: "artifact://nosuchartifact" }).catch((err) => err);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
    const bad = await server.client.readResource({ uri: "artifact://../etc/passwd" }).catch((err) => err);
    expect((bad as McpError).code).toBe(-32602);
    expect((bad as McpError).message).toMatch(/^MCP error -32602: uri: /);
    expect((bad as McpError).message.match(/MCP error/g)).toHaveLength(1);
    const after = await callEval(server.client, [{ code: "1 + 1" }]);
    expect(textOf(after)).toContain("2");
  });

  const plotSkip = librarySkipReason(DEBIAN_PYTHON, ["matplotlib"]);
  it.skipIf(plotSkip !== undefined)(
    titleWithSkip("returns a matplotlib figure as PNG image content", plotSkip),
    async () => {
      const server = await startServer({ python: DEBIAN_PYTHON });
      const result = await callEval(server.client, [
        { code: "import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 2), dpi=50)\nplt.plot([1, 3, 2]);" },
      ]);
      expect(result.isError, textOf(result)).toBe(false);
      const images = result.content.filter((block) => block.type === "image");
      expect(images).toHaveLength(1);
      const image = images[0] as { data: string; mimeType: string };
      expect(image.mimeType).toBe("image/png");
      expect(Buffer.from(image.data, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
    },
  );
});
