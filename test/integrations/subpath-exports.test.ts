// The adapters are reachable as users import them: `evalkit/ai-sdk` and `evalkit/openai-agents` from the build.
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../helpers/build.js";

describe("integration subpath exports", () => {
  beforeAll(ensureBuilt, 150_000);

  it("resolves evalkit/ai-sdk and evalkit/openai-agents to the built adapters", () => {
    const script = [
      "const ai = await import('evalkit/ai-sdk');",
      "const agents = await import('evalkit/openai-agents');",
      "console.log(typeof ai.createAiSdkEvalTool, typeof agents.createOpenAIAgentsEvalTool);",
    ].join("\n");
    // A package can import itself by name through its `exports` (what a user's import resolves against).
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("function function\n");
  });
});
