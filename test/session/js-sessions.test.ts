// Integration tests of SessionManager with real JS kernels (child node processes): state, timeouts, kill, languages.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionCellOutcome } from "../../src/session/session-types.js";
import { TEST_PYTHON } from "../helpers/python.js";

const cwd = mkdtempSync(path.join(tmpdir(), "evalkit-session-js-"));
const managers: SessionManager[] = [];
function createManager(): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON });
  managers.push(manager);
  return manager;
}
function textOf(outcome: SessionCellOutcome): string {
  return outcome.outputs
    .map((o) => (o.type === "stream" ? o.text : o.type === "result" ? String(o.data["text/plain"]) : ""))
    .join("");
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("JS sessions", () => {
  it("keep state across calls, separately from the Python kernel of the same session", async () => {
    const manager = createManager();
    await manager.run({ cwd, language: "js", code: "globalThis.n = 20" });
    await manager.run({ cwd, language: "py", code: "n = 1" });
    const js = await manager.run({ cwd, language: "js", code: "n + 22" });
    expect(js.status).toBe("ok");
    expect(textOf(js)).toContain("42");
    expect(textOf(await manager.run({ cwd, language: "py", code: "n" }))).toBe("1");
    expect(manager.kernelCount).toBe(2);
  });

  it("interrupt a synchronous loop at the top of a cell on timeout and keep the kernel's state", async () => {
    const manager = createManager();
    await manager.run({ cwd, language: "js", code: "globalThis.kept = 3" });
    const outcome = await manager.run({ cwd, language: "js", code: "while (true) {}", timeoutSec: 1 });
    expect(outcome.status).toBe("timeout");
    expect(textOf(await manager.run({ cwd, language: "js", code: "kept" }))).toContain("3");
  });

  it("kill a kernel stuck in a synchronous loop after an await and give the next call a fresh one", async () => {
    const manager = createManager();
    await manager.run({ cwd, language: "js", code: "globalThis.kept = 1" });
    const started = performance.now();
    const outcome = await manager.run({
      cwd,
      language: "js",
      code: "await null; while (true) {}",
      timeoutSec: 1,
    });
    expect(outcome.status).toBe("killed");
    expect(performance.now() - started).toBeLessThan(4000);
    const next = await manager.run({ cwd, language: "js", code: "typeof globalThis.kept" });
    expect(next.status).toBe("ok");
    expect(textOf(next)).toContain("undefined");
    expect(next.notices[0]).toMatch(/^kernel restarted: /);
  });

  it("time out an await that never settles and keep the kernel's state", async () => {
    const manager = createManager();
    await manager.run({ cwd, language: "js", code: "globalThis.kept = 7" });
    const outcome = await manager.run({
      cwd,
      language: "js",
      code: "await new Promise(() => {})",
      timeoutSec: 1,
    });
    expect(outcome.status).toBe("timeout");
    expect(textOf(await manager.run({ cwd, language: "js", code: "kept" }))).toContain("7");
  });
});
