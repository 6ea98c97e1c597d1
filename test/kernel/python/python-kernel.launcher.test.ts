// Kernels reached through a launcher prefix: nothing but stdio crosses, so the runner travels over stdin.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startKernel, TEST_PYTHON } from "../../helpers/python.js";

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "evalkit-launcher-"));
// A launcher named `ssh` gets its command shell-quoted, because real ssh re-parses it with a shell.
const fakeSsh = join(dir, "ssh");
copyFileSync(join(FIXTURES, "launcher-fake-ssh.sh"), fakeSsh);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("PythonKernel through a launcher", () => {
  it("runs cells through a plain argv launcher such as `env`", async () => {
    const kernel = await startKernel({ launcher: ["env", "EVALKIT_VIA_LAUNCHER=1"] });
    const outcome = await kernel.execute("import os\nos.environ['EVALKIT_VIA_LAUNCHER']");
    expect(outcome.outputs).toEqual([{ type: "result", data: { "text/plain": "'1'" } }]);
  });

  it("shell-quotes the interpreter command for an ssh-style launcher", async () => {
    const kernel = await startKernel({ launcher: [fakeSsh, "somehost"], python: TEST_PYTHON });
    // The bootstrap (quotes, newlines) survived the far shell if the kernel answers at all.
    expect(kernel.info?.protocol).toBe(1);
    const ok = await kernel.execute('print("it\'s $HOME `x`")');
    expect(ok.outputs).toEqual([{ type: "stream", name: "stdout", text: "it's $HOME `x`\n" }]);
  });

  it("interrupts through the protocol when no signal can cross the launcher", async () => {
    const kernel = await startKernel({ launcher: [fakeSsh, "somehost"] });
    await kernel.execute("kept = 5");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const outcome = await kernel.execute("while True:\n    pass", { signal: controller.signal });
    expect(outcome.cancelled).toBe(true);
    expect((await kernel.execute("kept")).outputs).toEqual([{ type: "result", data: { "text/plain": "5" } }]);
  });

  it("names a launcher command that does not exist, instead of blaming Python", async () => {
    await expect(startKernel({ launcher: [join(dir, "no-such-launcher")] })).rejects.toMatchObject({
      code: "LAUNCHER_NOT_FOUND",
      message: expect.stringContaining("no-such-launcher was not found"),
    });
  });
});
