import { describe, expect, it } from "vitest";
import type { CellOutput, KernelOutput } from "../../../src/contracts/outputs.js";
import { STATUS_MIME } from "../../../src/contracts/outputs.js";
import { applyDisplayUpdates, toCellOutput } from "../../../src/output/display/display-updates.js";

const text = (t: string, displayId?: string, update?: true): KernelOutput => ({
  type: "display",
  data: { "text/plain": t },
  ...(displayId ? { displayId } : {}),
  ...(update ? { update } : {}),
});
const out = (t: string): KernelOutput => ({ type: "stream", name: "stdout", text: t });
const plainOf = (outputs: CellOutput[]): string[] =>
  outputs.map((o) =>
    o.type === "stream" ? o.text : o.type === "display" ? String(o.data["text/plain"]) : o.type,
  );

describe("applyDisplayUpdates", () => {
  it("replaces every earlier display with the same id in place and drops the update itself", () => {
    const result = applyDisplayUpdates([text("a", "p"), out("x\n"), text("a2", "p"), text("b", "p", true)]);
    expect(plainOf(result)).toEqual(["b", "x\n", "b"]);
    expect(result.every((o) => !("update" in o))).toBe(true);
  });

  it("keeps an update whose display is not in this cell as a new display", () => {
    const result = applyDisplayUpdates([out("x\n"), text("late", "other", true)]);
    expect(plainOf(result)).toEqual(["x\n", "late"]);
    expect(result[1]).toEqual({ type: "display", data: { "text/plain": "late" }, displayId: "other" });
  });

  it("clear_output removes everything before it but keeps status events", () => {
    const status: KernelOutput = { type: "display", data: { [STATUS_MIME]: { op: "cd", path: "/tmp" } } };
    const result = applyDisplayUpdates([
      out("1\n"),
      status,
      text("a"),
      { type: "clear_output", wait: false },
      out("2\n"),
    ]);
    expect(result).toEqual([{ type: "status", event: { op: "cd", path: "/tmp" } }, out("2\n")]);
  });

  it("clear_output(wait=True) clears just before the next output, so a progress loop ends on its last line", () => {
    const outputs: KernelOutput[] = [];
    for (let i = 0; i < 5; i += 1) outputs.push({ type: "clear_output", wait: true }, out(`step ${i}\n`));
    expect(plainOf(applyDisplayUpdates(outputs))).toEqual(["step 4\n"]);
  });

  it("a pending clear with no later output leaves the last output visible, and updates do not trigger it", () => {
    const result = applyDisplayUpdates([
      text("a", "p"),
      { type: "clear_output", wait: true },
      text("b", "p", true),
    ]);
    expect(plainOf(result)).toEqual(["b"]);
  });
});

describe("toCellOutput", () => {
  it("turns a display carrying the status MIME into a status output and leaves others alone", () => {
    const status = toCellOutput({ type: "display", data: { [STATUS_MIME]: { op: "find", count: 3 } } });
    expect(status).toEqual({ type: "status", event: { op: "find", count: 3 } });
    const plain = text("x");
    expect(toCellOutput(plain)).toBe(plain);
    const notAnObject: KernelOutput = { type: "display", data: { [STATUS_MIME]: "oops" } };
    expect(toCellOutput(notAnObject)).toBe(notAnObject);
  });
});
