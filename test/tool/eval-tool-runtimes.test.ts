// A third language through the whole eval tool with only a runtime description: the Perl protocol runner of the
// conformance suite (test/fixtures/perl-runner.pl), beside Python, with state, errors, timeouts and aliases.
import { afterEach, describe, expect, it } from "vitest";
import { defineRuntime } from "../../src/kernel/runtimes/define-runtime.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { findPerlMissing, PERL_RUNNER } from "../protocol/runtimes.js";
import { cleanupTools, makeTool } from "./tool-helpers.js";

afterEach(cleanupTools);

const perlMissing = findPerlMissing();
requireOrExplainSkip("the Perl runtime through the eval tool", perlMissing);

const perl = defineRuntime({
  name: "perl",
  aliases: ["pl"],
  command: ["perl", PERL_RUNNER],
  interruptGraceMs: 1000,
  summary: "Perl 5; display(), completion() and input() are defined",
});

describe.skipIf(perlMissing !== undefined)("eval tool with a Perl runtime", () => {
  it("runs a Perl cell: its stdout, its result and its status", async () => {
    const tool = makeTool({ runtimes: [perl] });
    const result = await tool.execute({ cells: [{ language: "perl", code: 'print "hello\\n"; 1+1' }] });
    expect(result.details.cells[0]).toMatchObject({ status: "ok", language: "perl" });
    expect(result.details.cells[0]?.text).toBe("hello\n2\n");
  });

  it("keeps Perl state across calls and beside Python's in one session", async () => {
    const tool = makeTool({ runtimes: [perl] });
    const first = await tool.execute({
      cells: [
        { language: "perl", code: "our $shared = 'perl side';" },
        { language: "py", code: "shared = 'python side'" },
      ],
    });
    expect(first.details.ok).toBe(true);
    const second = await tool.execute({
      cells: [
        { language: "py", code: "shared" },
        { language: "pl", code: "$shared" },
      ],
    });
    expect(second.details.cells.map((cell) => [cell.language, cell.text.trim()])).toEqual([
      ["py", "'python side'"],
      ["perl", "perl side"],
    ]);
  });

  it("reports a Perl die as the cell's error and stops the call there", async () => {
    const tool = makeTool({ runtimes: [perl] });
    const result = await tool.execute({
      cells: [
        { language: "perl", code: 'die "no such file\\n";' },
        { language: "perl", code: "1" },
      ],
    });
    expect(result.details.cells[0]).toMatchObject({ status: "error" });
    expect(result.details.cells[0]?.text).toContain("no such file");
    expect(result.details.cells[1]).toMatchObject({ status: "skipped" });
  });

  it("ends a busy Perl cell at its timeout and keeps the kernel's state for the next call", async () => {
    const tool = makeTool({ runtimes: [perl] });
    await tool.execute({ cells: [{ language: "perl", code: "our $kept = 41;" }] });
    const started = Date.now();
    const result = await tool.execute({ cells: [{ language: "perl", code: "1 while 1;", timeout: 1 }] });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.details.cells[0]).toMatchObject({ status: "timeout" });
    const next = await tool.execute({ cells: [{ language: "perl", code: "$kept + 1" }] });
    expect(next.details.cells[0]?.text.trim()).toBe("42");
  });

  it("replaces a Perl kernel that died in a cell with a fresh one on the next call", async () => {
    const tool = makeTool({ runtimes: [perl] });
    await tool.execute({ cells: [{ language: "perl", code: "our $kept = 1;" }] });
    const died = await tool.execute({ cells: [{ language: "perl", code: "exit 3;" }] });
    expect(died.details.ok).toBe(false);
    expect(died.details.cells[0]?.status).not.toBe("ok");
    const next = await tool.execute({
      cells: [{ language: "perl", code: "defined $kept ? 'kept' : 'fresh'" }],
    });
    expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "fresh\n" });
  });

  it("refuses to run a Perl cell under resource limits it cannot keep, and says which option", async () => {
    const tool = makeTool({ runtimes: [perl], limits: { cpuSeconds: 60 } });
    const result = await tool.execute({ cells: [{ language: "perl", code: "1" }] });
    expect(result.details.cells[0]?.status).not.toBe("ok");
    expect(result.details.cells[0]?.text).toContain("cannot run with the option limits");
  });

  it("answers a Perl cell's completion() through the tool's host handler", async () => {
    const tool = makeTool({
      runtimes: [perl],
      handlers: { completion: async (params) => `echo: ${String(params.prompt)}` },
    });
    const result = await tool.execute({ cells: [{ language: "perl", code: 'completion("ping")' }] });
    expect(result.details.cells[0]).toMatchObject({ status: "ok" });
    expect(result.details.cells[0]?.text.trim()).toBe("echo: ping");
  });

  it("offers the runtime's language and alias in its input schema and its description", async () => {
    const tool = makeTool({ runtimes: [perl] });
    const schema = tool.inputSchema as unknown as {
      properties: { cells: { items: { properties: { language: { enum?: string[] } } } } };
    };
    expect(schema.properties.cells.items.properties.language.enum).toEqual(
      expect.arrayContaining(["py", "js", "perl", "pl"]),
    );
    expect(tool.description).toContain('"perl" cells run in a perl kernel: Perl 5');
    const refused = await tool
      .execute({ cells: [{ language: "ruby", code: "1" }] })
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: "INVALID_INPUT" });
  });
});
