// A cell that slows the runner with sys.setprofile/sys.settrace: interrupts still land, the kernel lives, and
// the cell's fate is reported as what happened (timeout or cancelled, never a killed kernel).
import { describe, expect, it } from "vitest";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { createManager, textOf } from "./chaos-helpers.js";

const SLOW_PROFILE =
  "import sys, time\ndef prof(frame, event, arg):\n    time.sleep(0.002)\nsys.setprofile(prof)";
const SLOW_TRACE =
  "import sys, time\ndef tr(frame, event, arg):\n    time.sleep(0.002)\n    return tr\nsys.settrace(tr)";

function stderrOf(outcome: SessionCellOutcome): string {
  return outcome.outputs.map((o) => (o.type === "stream" && o.name === "stderr" ? o.text : "")).join("");
}

describe("chaos: a runner slowed by trace hooks", () => {
  it.each([
    ["sys.setprofile", SLOW_PROFILE],
    ["sys.settrace", SLOW_TRACE],
  ])(
    "times out a busy cell that set a slow %s hook, and keeps the kernel",
    async (name, hook) => {
      // A grace of 3 s: under the hook, the runner's own clean-up used to take longer and the kernel was killed.
      const manager = createManager({ interruptGraceMs: 3000 });
      const first = await manager.run({ code: "import os\nkept = 7\nos.getpid()" });
      const started = Date.now();
      const busy = await manager.run({ code: `${hook}\nwhile True:\n    sum(range(10))`, timeoutSec: 2 });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(busy.status).toBe("timeout");
      expect(busy.notices.join("\n")).toContain("remains running");
      expect(stderrOf(busy)).toContain(`the interrupt removed this cell's ${name} hook`);
      const after = await manager.run({ code: "import os\n(kept, os.getpid())" });
      expect(textOf(after)).toBe(`(7, ${textOf(first)})`);
    },
    60_000,
  );

  it("interrupts the next cell when an earlier one left a slow trace hook installed", async () => {
    const manager = createManager({ interruptGraceMs: 3000 });
    const left = await manager.run({ code: `${SLOW_TRACE}\nkept = 8` });
    expect(left.status).toBe("ok");
    const controller = new AbortController();
    const running = manager.run({
      code: "import time\nwhile True:\n    time.sleep(0.01)",
      timeoutSec: 60,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 1500);
    const cancelled = await running;
    expect(cancelled.status).toBe("cancelled");
    expect(stderrOf(cancelled)).toContain("removed this cell's sys.settrace hook");
    const after = await manager.run({ code: "kept" });
    expect(after.status).toBe("ok");
    expect(textOf(after)).toBe("8");
  }, 60_000);
});
