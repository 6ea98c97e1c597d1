// docs/protocol.schema.json is generated from src/protocol/: these tests fail when it is stale, and when an
// example frame in docs/protocol.md no longer matches the schema.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { hostFrame } from "../../src/protocol/host-frames.js";
import { PROTOCOL_SCHEMA_FILE, renderProtocolSchema } from "../../src/protocol/json-schema.js";
import { runnerFrame } from "../../src/protocol/runner-frames.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Every inline-code JSON object in docs/protocol.md that names a frame type. */
function exampleFrames(): Array<Record<string, unknown>> {
  const text = readFileSync(resolve(ROOT, "docs/protocol.md"), "utf8");
  const frames: Array<Record<string, unknown>> = [];
  for (const match of text.matchAll(/`(\{"type":[^`]*\})`/g)) {
    const source = match[1] ?? "";
    if (source.includes("…")) continue; // abbreviated in the prose
    frames.push(JSON.parse(source) as Record<string, unknown>);
  }
  return frames;
}

describe("the protocol schema file", () => {
  it("is the document the zod schemas generate today (run `npm run protocol:schema` after changing them)", () => {
    // Compared as JSON: the layout is biome's (the script formats the file), the content is the schemas'.
    const committed = JSON.parse(readFileSync(resolve(ROOT, PROTOCOL_SCHEMA_FILE), "utf8")) as unknown;
    expect(committed).toEqual(JSON.parse(renderProtocolSchema()));
  });

  it("names every frame type of both directions in its definitions", () => {
    const document = JSON.parse(renderProtocolSchema()) as { $defs: Record<string, unknown> };
    expect(Object.keys(document.$defs)).toEqual(
      expect.arrayContaining([
        "HostFrame",
        "RunnerFrame",
        "PythonExecuteFrame",
        "JsExecuteFrame",
        "InterruptFrame",
        "ReplyFrame",
        "InputReplyFrame",
        "IsCompleteFrame",
        "CompleteFrame",
        "ExitFrame",
        "ReadyFrame",
        "StartedFrame",
        "StreamFrame",
        "DisplayFrame",
        "ResultFrame",
        "ClearOutputFrame",
        "ErrorFrame",
        "DoneFrame",
        "CallFrame",
        "CancelCallFrame",
        "InputRequestFrame",
        "IsCompleteReplyFrame",
        "CompleteReplyFrame",
        "ProtocolErrorFrame",
        "SyncFrame",
      ]),
    );
  });
});

describe("the example frames of docs/protocol.md", () => {
  const frames = exampleFrames();

  it("are many enough to cover the protocol", () => {
    expect(frames.length).toBeGreaterThanOrEqual(20);
  });

  it("each match the schema of one direction", () => {
    const misfits = frames.filter(
      (frame) => !hostFrame.safeParse(frame).success && !runnerFrame.safeParse(frame).success,
    );
    expect(misfits).toEqual([]);
  });
});
