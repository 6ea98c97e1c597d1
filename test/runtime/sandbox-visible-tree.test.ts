// What a sandboxed cell sees at the top of the file system, as docs/sandbox.md says it, checked from a real cell.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startKernel } from "../helpers/python.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-sandbox-tree-")));
const home = realpathSync(mkdtempSync(join(tmpdir(), "evalkit-sandbox-tree-home-")));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(sandboxSkipReason !== "")(`the sandbox's top-level tree ${sandboxSkipReason}`, () => {
  it("hides /home, /run, /srv and /mnt, and shows /var with only its private tmp", async () => {
    const kernel = await startKernel({
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, EVALKIT_HOME: join(home, ".evalkit") },
      sandbox: { network: false, writable: [] },
    });
    const code = [
      "import json, os",
      "seen = {}",
      "for path in ['/home', '/run', '/srv', '/mnt', '/var']:",
      "    seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else None",
      "seen['HOME'] = sorted(os.listdir(os.environ['HOME']))",
      "print(json.dumps(seen))",
    ].join("\n");
    const outcome = await kernel.execute(code);
    const out = outcome.outputs.map((o) => (o.type === "stream" ? o.text : "")).join("");
    const seen = JSON.parse(out);
    expect(seen).toMatchObject({ "/home": null, "/run": null, "/srv": null, "/mnt": null, "/var": ["tmp"] });
    // The private HOME is empty but for evalkit's compiled-code cache when EVALKIT_HOME lies in the home.
    expect(seen.HOME.filter((name: string) => name !== ".evalkit")).toEqual([]);
  }, 60_000);
});
