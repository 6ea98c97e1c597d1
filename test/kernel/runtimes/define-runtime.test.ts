// defineRuntime: a runtime description is validated once, with errors that name the field, and lists of them
// refuse a language name taken twice.
import { describe, expect, it } from "vitest";
import { checkRuntimes, defineRuntime, findRuntime } from "../../../src/kernel/runtimes/define-runtime.js";

describe("defineRuntime", () => {
  it("fills in the defaults a protocol runner gets and freezes the result", () => {
    const perl = defineRuntime({ name: "perl", command: ["perl", "runner.pl"] });
    expect(perl).toMatchObject({
      name: "perl",
      aliases: [],
      command: ["perl", "runner.pl"],
      interrupt: "signal+frame",
      interruptGraceMs: 2000,
      startTimeoutMs: 10_000,
      echoesNonce: true,
      hasIsComplete: false,
    });
    expect(Object.isFrozen(perl)).toBe(true);
  });

  it.each([
    [{ name: "Perl", command: ["perl"] }, "runtime.name"],
    [{ name: "python", command: ["perl"] }, "runtime.name"],
    [{ name: "perl", command: [] }, "runtime.command"],
    [{ name: "perl", command: ["perl"], interrupt: "kill" }, "runtime.interrupt"],
    [{ name: "perl", command: ["perl"], aliases: ["js"] }, "runtime.aliases.0"],
    [{ name: "perl", command: ["perl"], colour: "blue" }, "runtime"],
  ])("refuses %j with INVALID_INPUT naming %s", (definition, field) => {
    expect(() => defineRuntime(definition as never)).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT" }),
    );
    try {
      defineRuntime(definition as never);
    } catch (err) {
      expect((err as { details: { field: string } }).details.field).toBe(field);
    }
  });

  it("refuses a list that takes one language name twice, and finds a runtime by name or alias", () => {
    const perl = defineRuntime({ name: "perl", aliases: ["pl"], command: ["perl"] });
    const other = defineRuntime({ name: "plx", aliases: ["pl"], command: ["plx"] });
    expect(() => checkRuntimes([perl, other])).toThrow(/"pl" is taken twice/);
    expect(findRuntime([perl], "pl")).toBe(perl);
    expect(findRuntime([perl], "ruby")).toBeUndefined();
  });

  it("validates a plain object given where a defineRuntime result belongs", () => {
    expect(() => checkRuntimes([{ name: "perl", command: [] } as never])).toThrow(/runtime\.command/);
  });
});
