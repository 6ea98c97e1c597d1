// `evalkit exec` text mode: output streams while cells run, images become files named on one line each.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { runExec } from "../../src/cli/exec.js";
import { ensureBuilt } from "../helpers/build.js";
import { DEBIAN_PYTHON } from "../helpers/interpreters.js";
import { librarySkipReason, titleWithSkip } from "../helpers/libraries.js";
import { captureIo } from "../tool/capture-io.js";
import { cleanupTools, makeTempDir, TEST_PYTHON } from "../tool/tool-helpers.js";

afterEach(cleanupTools);

// Debian's python3 holds pandas where CI installs it (python3-pandas); the suite's own Python may not.
const NO_PANDAS = librarySkipReason(DEBIAN_PYTHON, ["pandas"]);
const DEBIAN = ["--python", DEBIAN_PYTHON];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PY = ["--python", TEST_PYTHON];
// A 1x1 PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("evalkit exec text mode", () => {
  beforeAll(ensureBuilt, 150_000);

  it("saves each image to a file under --images and prints one line naming it", async () => {
    const dir = makeTempDir("exec-images");
    const code = [
      `png = {"image/png": "${PNG_BASE64}", "text/plain": "<Figure size 1x1>"}`,
      "display(png, raw=True)",
      "print('between')",
      "display(png, raw=True)",
    ].join("\n");
    const io = captureIo();
    expect(await runExec(["-c", code, "--images", dir, ...PY], io), io.err()).toBe(0);
    const lines = io.out().trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(lines[0]).toBe(`[image] image/png saved to ${path.join(dir, files[0]!)}`);
    expect(lines[1]).toBe("between");
    expect(lines[2]).toBe(`[image] image/png saved to ${path.join(dir, files[1]!)}`);
    expect(readFileSync(path.join(dir, files[0]!)).equals(Buffer.from(PNG_BASE64, "base64"))).toBe(true);
  });

  it("puts images under $EVALKIT_HOME/images by default", async () => {
    const home = makeTempDir("exec-images-home");
    const previous = process.env.EVALKIT_HOME;
    process.env.EVALKIT_HOME = home;
    try {
      const io = captureIo();
      const code = `display({"image/png": "${PNG_BASE64}"}, raw=True)`;
      expect(await runExec(["-c", code, ...PY], io), io.err()).toBe(0);
      const match = /^\[image\] image\/png saved to (\S+\.png)\n$/.exec(io.out());
      expect(match?.[1]?.startsWith(path.join(home, "images"))).toBe(true);
      expect(existsSync(match![1]!)).toBe(true);
    } finally {
      if (previous === undefined) delete process.env.EVALKIT_HOME;
      else process.env.EVALKIT_HOME = previous;
    }
  });

  it("prunes its own images folder like artifacts (7 days, 256 MiB) but never a folder named with --images", async () => {
    const home = makeTempDir("exec-images-prune");
    const named = makeTempDir("exec-images-named");
    const old = "20200101-000000-1-1.png";
    const eightDaysAgo = (Date.now() - 8 * 24 * 60 * 60 * 1000) / 1000;
    for (const dir of [path.join(home, "images"), named]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, old), "old");
      utimesSync(path.join(dir, old), eightDaysAgo, eightDaysAgo);
    }
    const previous = process.env.EVALKIT_HOME;
    process.env.EVALKIT_HOME = home;
    try {
      const code = `display({"image/png": "${PNG_BASE64}"}, raw=True)`;
      const io = captureIo();
      expect(await runExec(["-c", code, ...PY], io), io.err()).toBe(0);
      expect(readdirSync(path.join(home, "images"))).not.toContain(old);
      expect(readdirSync(path.join(home, "images"))).toHaveLength(1);
      const kept = captureIo();
      expect(await runExec(["-c", code, "--images", named, ...PY], kept), kept.err()).toBe(0);
      expect(readdirSync(named)).toContain(old);
    } finally {
      if (previous === undefined) delete process.env.EVALKIT_HOME;
      else process.env.EVALKIT_HOME = previous;
    }
  });

  it("rejects an --images path that cannot hold images before running anything", async () => {
    const dir = makeTempDir("exec-images-bad");
    const file = path.join(dir, "taken");
    writeFileSync(file, "not a directory");
    const marker = path.join(dir, "ran");
    const code = `open(${JSON.stringify(marker)}, "w").close()`;
    for (const [args, message] of [
      [["--images", file], `--images ${JSON.stringify(file)} is not a directory`],
      [["--images", ""], "--images needs a directory"],
      [
        ["--images", "-c", "1"],
        '--images needs a value (to pass one that starts with "-", write --images=VALUE)',
      ],
    ] as const) {
      const io = captureIo();
      expect(await runExec(["-c", code, ...args, ...PY], io)).toBe(2);
      expect(io.err()).toBe(`evalkit exec: ${message}; see evalkit exec --help\n`);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("says on its line when an image cannot be saved, and goes on with the cell", async () => {
    const dir = makeTempDir("exec-images-unsaved");
    writeFileSync(path.join(dir, "file"), "x");
    const target = path.join(dir, "file", "images"); // a file in the way: mkdir fails with ENOTDIR
    const code = `display({"image/png": "${PNG_BASE64}"}, raw=True)\nprint("after")`;
    const io = captureIo();
    expect(await runExec(["-c", code, "--images", target, ...PY], io), io.err()).toBe(0);
    const lines = io.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^\[image\] image\/png not saved: ENOTDIR.*\(images go to .*file\/images\)$/);
    expect(lines[1]).toBe("after");
  });

  it("shows a cell's output while it still runs, and --json only at the end as one object", async () => {
    const dir = makeTempDir("exec-stream");
    // The cell prints, then waits for a file the test writes only once it has seen the print.
    const run = (go: string, extra: string[]) => {
      const code = [
        "import os, time",
        "print('first', flush=True)",
        `while not os.path.exists(${JSON.stringify(go)}): time.sleep(0.05)`,
        "print('second')",
      ].join("\n");
      const argv = [path.join(ROOT, "bin", "evalkit.js"), "exec", "-c", code, ...PY, ...extra];
      const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("first")) writeFileSync(go, "");
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      return { exited, out: () => out };
    };
    const text = run(path.join(dir, "go-text"), []);
    expect(await text.exited).toBe(0);
    expect(text.out()).toBe("first\nsecond\n");

    // --json prints nothing until the end, so the cell would wait forever: the test releases it itself.
    const go = path.join(dir, "go-json");
    const json = run(go, ["--json"]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(json.out()).toBe("");
    writeFileSync(go, "");
    expect(await json.exited).toBe(0);
    const details = JSON.parse(json.out());
    expect(details.cells[0].text).toBe("first\nsecond\n");
  }, 60_000);

  it.skipIf(NO_PANDAS !== undefined)(
    titleWithSkip(
      "prints a DataFrame and a Series as IPython does (aligned text) while --json keeps the model's markdown",
      NO_PANDAS,
    ),
    async () => {
      const code = [
        "import pandas as pd",
        "df = pd.DataFrame({'name': ['a', 'bbbbbb'], 'value': [1.5, 22.25]})",
        "display(df)",
        "df['value'].rename('v')",
      ].join("\n");
      const text = captureIo();
      expect(await runExec(["-c", code, ...DEBIAN], text), text.err()).toBe(0);
      expect(text.out()).toBe(
        [
          "     name  value",
          "0       a   1.50",
          "1  bbbbbb  22.25",
          "0     1.50",
          "1    22.25",
          "Name: v, dtype: float64",
          "",
        ].join("\n"),
      );
      const json = captureIo();
      expect(await runExec(["-c", code, "--json", ...DEBIAN], json), json.err()).toBe(0);
      const details = JSON.parse(json.out());
      expect(details.cells[0].text).toContain("|  | name | value |");
      expect(details.cells[0].text).toContain("Name: v, dtype: float64");
      expect(details.cells[0].text).not.toContain("     name  value");
    },
  );
});
