// createEvalTool options: validation naming the option, EVALKIT_PY/EVALKIT_JS flags, launcher strings.
import { describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { splitCommandLine } from "../../src/tool/launcher.js";
import {
  parseBooleanFlag,
  resolveEnabledLanguages,
  resolveToolOptions,
} from "../../src/tool/tool-options.js";

function errorOf(fn: () => unknown): Error & { code?: string; details?: { field?: string } } {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}

describe("backend flags", () => {
  it("parses 1/0, true/false, yes/no and on/off in any case", () => {
    for (const word of ["1", "true", "YES", "On"]) expect(parseBooleanFlag("EVALKIT_PY", word)).toBe(true);
    for (const word of ["0", "false", "no", "OFF"]) expect(parseBooleanFlag("EVALKIT_PY", word)).toBe(false);
    expect(parseBooleanFlag("EVALKIT_PY", undefined)).toBeUndefined();
    expect(parseBooleanFlag("EVALKIT_PY", "")).toBeUndefined();
  });

  it("rejects another word, naming the variable", () => {
    const err = errorOf(() => parseBooleanFlag("EVALKIT_JS", "maybe"));
    expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
    expect(err.message).toContain("EVALKIT_JS");
  });

  it("lets each set flag override only its own option; unset flags fall back to the option", () => {
    expect(resolveEnabledLanguages({}, {})).toEqual(["py", "js"]);
    expect(resolveEnabledLanguages({ js: false }, {})).toEqual(["py"]);
    expect(resolveEnabledLanguages({ js: false }, { EVALKIT_JS: "1" })).toEqual(["py", "js"]);
    expect(resolveEnabledLanguages({ py: true }, { EVALKIT_PY: "0" })).toEqual(["js"]);
    expect(resolveEnabledLanguages({ py: false }, { EVALKIT_JS: "yes" })).toEqual(["js"]);
  });

  it("refuses to disable both backends", () => {
    const err = errorOf(() => resolveEnabledLanguages({ py: false }, { EVALKIT_JS: "off" }));
    expect(isEvalkitError(err, "INVALID_INPUT")).toBe(true);
  });
});

describe("tool options", () => {
  it("fills in defaults", () => {
    const resolved = resolveToolOptions({ flagsEnv: {} });
    expect(resolved.mode).toBe("session");
    expect(resolved.sessionId).toBe("default");
    expect(resolved.maxTimeout).toBe(3600);
    expect(resolved.defaultTimeout).toBe(30);
    expect(resolved.enabled).toEqual(["py", "js"]);
    expect(resolved.cwd).toBe(process.cwd());
  });

  it("names the offending option", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ mode: "forever" }, "mode"],
      [{ maxTimeout: 0 }, "maxTimeout"],
      [{ py: "yes" }, "py"],
      [{ output: { headBytes: -1 } }, "output.headBytes"],
      [{ env: { A: 1 } }, "env.A"],
      [{ handlers: { agent: "not a function" } }, "handlers.agent"],
      [{ pyhton: "/usr/bin/python3" }, "pyhton"],
    ];
    for (const [options, field] of cases) {
      const err = errorOf(() => resolveToolOptions(options as never));
      expect(isEvalkitError(err, "INVALID_INPUT"), field).toBe(true);
      expect(err.details?.field).toBe(field);
      expect(err.message).toContain(field);
    }
  });

  it("rejects a working directory that does not exist", () => {
    const err = errorOf(() => resolveToolOptions({ cwd: "/no/such/dir/evalkit" }));
    expect(err.details?.field).toBe("cwd");
  });

  it("splits a launcher string like a shell would, without expansion", () => {
    expect(resolveToolOptions({ launcher: "docker exec -i box" }).launcher).toEqual([
      "docker",
      "exec",
      "-i",
      "box",
    ]);
    expect(splitCommandLine(`ssh -o 'Opt=a b' "my host" a\\ b $HOME`)).toEqual([
      "ssh",
      "-o",
      "Opt=a b",
      "my host",
      "a b",
      "$HOME",
    ]);
    expect(errorOf(() => splitCommandLine("docker exec 'box")).message).toContain("unterminated");
    expect(resolveToolOptions({ launcher: "  " }).launcher).toBeUndefined();
  });

  it("clamps the default timeout to the maximum", () => {
    expect(resolveToolOptions({ maxTimeout: 10, defaultTimeout: 60 }).defaultTimeout).toBe(10);
  });
});
