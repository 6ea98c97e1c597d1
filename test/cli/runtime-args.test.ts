// `--runtime NAME=COMMAND`: a protocol runner's language from the command line (`evalkit exec`), with a usage
// error for a malformed flag.
import { afterEach, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { findPerlMissing, PERL_RUNNER } from "../protocol/runtimes.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

const perlMissing = findPerlMissing();
requireOrExplainSkip("the --runtime flag with the Perl runner", perlMissing);

describe("evalkit exec --runtime", () => {
  it.skipIf(perlMissing !== undefined)(
    "runs -c cells in the runtime's language given by --lang",
    async () => {
      const io = captureIo();
      const code = await runExec(
        ["--runtime", `perl=perl ${PERL_RUNNER}`, "--lang", "perl", "-c", 'print "hi\\n"; 6 * 7', "--json"],
        io,
      );
      expect(io.err()).toBe("");
      expect(code).toBe(0);
      const details = JSON.parse(io.out());
      expect(details.cells[0]).toMatchObject({ language: "perl", status: "ok", text: "hi\n42\n" });
    },
  );

  it.each([["perl"], ["=perl runner.pl"], ["perl="]])(
    "refuses --runtime %j as bad usage (exit 2)",
    async (flag) => {
      const io = captureIo();
      const code = await runExec(["--runtime", flag, "-c", "1"], io);
      expect(code).toBe(2);
      expect(io.err()).toContain("--runtime: expected NAME=COMMAND");
    },
  );

  it("refuses a runtime that takes a built-in language's name, naming the field", async () => {
    const io = captureIo();
    const code = await runExec(["--runtime", "python=perl runner.pl", "-c", "1"], io);
    expect(code).toBe(2);
    expect(io.err()).toContain("runtime.name");
  });
});
