// The REPL's kernels come from the session layer's factories, so a launcher sees what `exec --launcher` gives it.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ReplKernels } from "../../../src/cli/repl/kernels.js";
import { createDefaultResolver } from "../../../src/session/default-kernels.js";
import { TEST_PYTHON } from "../../helpers/python.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-repl-kernels-")));
const opened: ReplKernels[] = [];
const savedSock = process.env.SSH_AUTH_SOCK;

afterEach(async () => {
  await Promise.all(opened.splice(0).map((kernels) => kernels.shutdown()));
  if (savedSock === undefined) delete process.env.SSH_AUTH_SOCK;
  else process.env.SSH_AUTH_SOCK = savedSock;
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function resultOf(kernels: ReplKernels, code: string): Promise<unknown> {
  const kernel = await kernels.get("py");
  const outcome = await kernel.execute(code);
  const result = outcome.outputs.find((output) => output.type === "result");
  return result && result.type === "result" ? result.data["text/plain"] : outcome;
}

describe("REPL kernels", () => {
  it("hands a launcher the same environment as exec --launcher, SSH_AUTH_SOCK included", async () => {
    process.env.SSH_AUTH_SOCK = "/tmp/evalkit-test-agent.sock";
    const kernels = new ReplKernels({ cwd, python: TEST_PYTHON, launcher: ["env"] });
    opened.push(kernels);
    const description = await kernels.startPython();
    expect(description.reason).toBe("run through env");
    const seen = await resultOf(kernels, "import os\nos.environ.get('SSH_AUTH_SOCK')");
    expect(seen).toBe("'/tmp/evalkit-test-agent.sock'");
    const execEnv = (await createDefaultResolver(TEST_PYTHON, {}, ["env"])(cwd)).env;
    expect(execEnv.SSH_AUTH_SOCK).toBe("/tmp/evalkit-test-agent.sock");
  });

  it("keeps the agent socket from a local kernel, as exec does", async () => {
    process.env.SSH_AUTH_SOCK = "/tmp/evalkit-test-agent.sock";
    const kernels = new ReplKernels({ cwd, python: TEST_PYTHON });
    opened.push(kernels);
    const description = await kernels.startPython();
    expect(description.reason).not.toBe("");
    expect(await resultOf(kernels, "import os\nstr(os.environ.get('SSH_AUTH_SOCK'))")).toBe("'None'");
    const execEnv = (await createDefaultResolver(TEST_PYTHON, {})(cwd)).env;
    expect(execEnv.SSH_AUTH_SOCK).toBeUndefined();
  });
});
