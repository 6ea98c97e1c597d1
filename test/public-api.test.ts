// The package's public entry point works as the README shows it.

import { describe, expect, it } from "vitest";
import * as evalkit from "../src/index.js";
import { TEST_PYTHON } from "./helpers/python.js";

describe("public API", () => {
  it("runs the README's library example and keeps state between cells", async () => {
    const tool = evalkit.createEvalTool({ python: TEST_PYTHON });
    try {
      const { content, details } = await tool.execute({
        cells: [{ code: "import math\nmath.pi" }, { code: "print('state kept:', round(math.e, 3))" }],
      });
      expect(details.ok).toBe(true);
      expect(details.cells.map((c) => [c.status, c.text.trim()])).toEqual([
        ["ok", "3.141592653589793"],
        ["ok", "state kept: 2.718"],
      ]);
      expect(content.some((block) => block.type === "text" && block.text.includes("[1/2]"))).toBe(true);
    } finally {
      await tool.dispose();
    }
  });

  it("exposes one error class whose codes callers can branch on", () => {
    const error = new evalkit.EvalkitError("KERNEL_DIED", "gone");
    expect(evalkit.isEvalkitError(error, "KERNEL_DIED")).toBe(true);
    expect(evalkit.isEvalkitError(new Error("x"))).toBe(false);
  });
});
