// The sandbox and limit flags shared by exec, repl and mcp: what each asks for, and bad values named.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCommandArgs, UsageError } from "../../src/cli/args.js";
import { parseReplArgs, replSandbox } from "../../src/cli/repl/args.js";
import { readSandboxArgs, SANDBOX_OPTIONS } from "../../src/cli/sandbox-args.js";
import { isEvalkitError } from "../../src/errors.js";

const PROJECT = mkdtempSync(path.join(tmpdir(), "evalkit-sandbox-args-"));
afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));

const read = (argv: string[]) => readSandboxArgs(parseCommandArgs(argv, SANDBOX_OPTIONS).values);

describe("sandbox flags", () => {
  it("ask for nothing when none is given", () => {
    expect(read([])).toEqual({});
  });

  it("turn the sandbox on, widen it, and set limits", () => {
    expect(read(["--sandbox"])).toEqual({ sandbox: true });
    expect(read(["--sandbox-network", "--sandbox-write", "/a", "--sandbox-write", "/b"])).toEqual({
      sandbox: { network: true, writable: ["/a", "/b"] },
    });
    expect(read(["--memory-mb", "512", "--cpu-seconds", "60", "--max-processes", "32"])).toEqual({
      limits: { memoryMb: 512, cpuSeconds: 60, processes: 32 },
    });
  });

  it("reject a limit that is not a positive integer, naming the flag", () => {
    expect(() => read(["--memory-mb", "lots"])).toThrow(UsageError);
    expect(() => read(["--memory-mb", "lots"])).toThrow("--memory-mb");
    expect(() => read(["--cpu-seconds", "0"])).toThrow("--cpu-seconds: expected a positive integer");
  });

  it("turn checkpoints on with one undo level, or N levels with --undo, and refuse a negative N", () => {
    expect(read(["--checkpoints"])).toEqual({ checkpoints: { undo: 1 } });
    expect(read(["--undo", "3"])).toEqual({ checkpoints: { undo: 3 } });
    expect(read(["--checkpoints", "--undo", "0"])).toEqual({ checkpoints: { undo: 0 } });
    expect(() => read(["--undo", "-1"])).toThrow(/--undo/);
  });

  it("reach the REPL, where EVALKIT_SANDBOX=1 also turns the sandbox on and a launcher is refused", () => {
    const args = parseReplArgs(["--sandbox-network", "--memory-mb", "300"]);
    expect(replSandbox(args, PROJECT, {})).toEqual({
      sandbox: { network: true, writable: [] },
      limits: { memoryMb: 300 },
    });
    expect(replSandbox(parseReplArgs([]), PROJECT, { EVALKIT_SANDBOX: "1" })).toEqual({
      sandbox: { network: false, writable: [] },
    });
    const refused = (() => {
      try {
        return replSandbox(parseReplArgs(["--sandbox", "--launcher", "ssh host"]), PROJECT, {});
      } catch (err) {
        return err;
      }
    })();
    expect(isEvalkitError(refused, "INVALID_INPUT")).toBe(true);
    expect(() => parseReplArgs(["--max-processes", "-1"])).toThrow("--max-processes");
  });

  it("stop the REPL at start when its cwd is the home the sandbox hides, naming the cwd", () => {
    const refused = (() => {
      try {
        return replSandbox(parseReplArgs(["--sandbox"]), "/home/someone", { HOME: "/home/someone" });
      } catch (err) {
        return err;
      }
    })();
    expect(isEvalkitError(refused, "INVALID_INPUT")).toBe(true);
    expect((refused as { details: { field: string } }).details.field).toBe("cwd");
    expect(replSandbox(parseReplArgs([]), "/home/someone", { HOME: "/home/someone" })).toEqual({});
  });
});
