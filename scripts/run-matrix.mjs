// Compatibility matrix: the Python-facing integration tests and python/tests on every CPython 3.8–3.13 found.
//
// Usage: node scripts/run-matrix.mjs [--versions 3.8,3.12] [--list]
// Versions run one after another (each uses both cores: vitest with two workers, the Python unit tests beside
// it). Exit status: 0 when every present version passed, 1 when one failed or none was found.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SUPPORTED_MINORS = [8, 9, 10, 11, 12, 13];

/** Integration tests whose behaviour depends on the interpreter (runner core, capture, display, magics,
 * prelude, interrupts and timeouts). Left out on purpose: fixture-driven protocol tests (no Python in them),
 * session/tool logic (same Python path as the kernel tests), Debian-library display tests (always
 * /usr/bin/python3), runner-compat (already loops over every version) and %pip (16 s a version). */
const VITEST_FILES = [
  "test/kernel/python/python-kernel.channel.test.ts",
  "test/kernel/python/python-kernel.execute.test.ts",
  "test/kernel/python/python-kernel.lifecycle.test.ts",
  "test/integration/display.test.ts",
  "test/integration/magics.test.ts",
  "test/integration/magics-shell.test.ts",
  "test/integration/prelude.test.ts",
  "test/integration/prelude-bridge.test.ts",
  "test/session/python-timeouts.test.ts",
  "test/kernel/magic-transformer.fuzz.test.ts",
  "test/runtime/host-guard.test.ts", // the host's guard runs on the kernels' own interpreter
];

/** python/tests left out of the matrix: the first scans every interpreter's standard library from one
 * interpreter (40–60 s; `npm run test:python` runs it once), the second always runs /usr/bin/python3. */
const UNITTEST_EXCLUDED_FILES = ["test_display_libs.py"];
const UNITTEST_EXCLUDED_TESTS = ["test_every_stdlib_file_of_every_interpreter_comes_back_unchanged"];

/** A version that takes longer than this is stopped and counted as failed (proves the matrix ends). */
const VERSION_DEADLINE_MS = 150_000;
/** The whole matrix should fit in this on a 2-core machine. */
const BUDGET_MS = 6 * 60_000;

function findPyenvRoot() {
  if (process.env.PYENV_ROOT && existsSync(process.env.PYENV_ROOT)) return process.env.PYENV_ROOT;
  const asked = spawnSync("pyenv", ["root"], { encoding: "utf8" });
  if (asked.status === 0 && asked.stdout.trim()) return asked.stdout.trim();
  const guess = join(process.env.HOME ?? "/root", ".pyenv");
  return existsSync(guess) ? guess : undefined;
}

/** "3.X" → real interpreter binary (never the shim); the newest patch release wins. */
function findInterpreters() {
  const found = new Map();
  const root = findPyenvRoot();
  if (!root || !existsSync(join(root, "versions"))) return { root, found };
  const versions = readdirSync(join(root, "versions"))
    .map((name) => ({ name, match: /^3\.(\d+)\.(\d+)$/.exec(name) }))
    .filter(({ match }) => match && SUPPORTED_MINORS.includes(Number(match[1])))
    .sort((a, b) => Number(a.match[2]) - Number(b.match[2]));
  for (const { name, match } of versions) {
    const binary = join(root, "versions", name, "bin", "python3");
    if (existsSync(binary)) found.set(`3.${match[1]}`, { binary, full: name });
  }
  return { root, found };
}

function parseArgs(argv) {
  const options = { versions: undefined, list: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--list") options.list = true;
    else if (argv[i] === "--versions") options.versions = (argv[++i] ?? "").split(",").filter(Boolean);
    else {
      console.error(
        `run-matrix: unknown argument ${argv[i]}\nusage: run-matrix.mjs [--versions 3.8,3.12] [--list]`,
      );
      process.exit(2);
    }
  }
  return options;
}

/** Runs a command with output to a buffer; kills its process group past the deadline. */
function run(command, args, env, deadlineMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    let isTimedOut = false;
    const timer = setTimeout(() => {
      isTimedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, deadlineMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, isTimedOut, ms: Date.now() - started });
    });
  });
}

const UNITTEST_DRIVER = `
import os, sys, unittest
excluded_files, excluded_tests = sys.argv[1].split(","), sys.argv[2].split(",")
loader = unittest.TestLoader()
suite = unittest.TestSuite()
for name in sorted(os.listdir("python/tests")):
    if name.startswith("test") and name.endswith(".py") and name not in excluded_files:
        suite.addTests(loader.discover("python/tests", pattern=name))
def flatten(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            for u in flatten(t): yield u
        else:
            yield t
kept = unittest.TestSuite(t for t in flatten(suite) if t.id().split(".")[-1] not in excluded_tests)
result = unittest.TextTestRunner(verbosity=1).run(kept)
print("UNITTEST %d %d %d" % (result.testsRun, len(result.failures) + len(result.errors), len(result.skipped)))
sys.exit(0 if result.wasSuccessful() else 1)
`;

async function runVersion(version, binary, workDir) {
  const jsonFile = join(workDir, `vitest-${version}.json`);
  const env = {
    ...process.env,
    EVALKIT_TEST_PYTHON: binary,
    EVALKIT_PYTHON_INTEGRATION: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  const vitestBin = join("node_modules", "vitest", "vitest.mjs");
  const [vitest, unittest] = await Promise.all([
    run(
      process.execPath,
      [
        vitestBin,
        "run",
        ...VITEST_FILES,
        "--maxWorkers=2",
        "--reporter=dot",
        "--reporter=json",
        `--outputFile.json=${jsonFile}`,
      ],
      env,
      VERSION_DEADLINE_MS,
    ),
    run(
      binary,
      ["-c", UNITTEST_DRIVER, UNITTEST_EXCLUDED_FILES.join(","), UNITTEST_EXCLUDED_TESTS.join(",")],
      env,
      VERSION_DEADLINE_MS,
    ),
  ]);
  const tests = [];
  let report;
  try {
    report = JSON.parse(readFileSync(jsonFile, "utf8"));
  } catch {
    report = undefined;
  }
  for (const file of report?.testResults ?? []) {
    for (const assertion of file.assertionResults) {
      tests.push({
        version,
        file: file.name.replace(`${process.cwd()}/`, ""),
        title: assertion.fullName ?? assertion.title,
        status: assertion.status,
        ms: assertion.duration ?? 0,
        failure: (assertion.failureMessages ?? []).join("\n"),
      });
    }
  }
  const unitLine = /^UNITTEST (\d+) (\d+) (\d+)$/m.exec(unittest.output);
  const vitestFailed = tests.filter((t) => t.status === "failed").length;
  const vitestPassed = tests.filter((t) => t.status === "passed").length;
  const vitestSkipped = tests.length - vitestFailed - vitestPassed;
  const isVitestOk = vitest.code === 0 && !vitest.isTimedOut && tests.length > 0 && vitestFailed === 0;
  const isUnitOk = unittest.code === 0 && !unittest.isTimedOut && unitLine !== null;
  return {
    version,
    binary,
    ok: isVitestOk && isUnitOk,
    vitest: { ...vitest, passed: vitestPassed, failed: vitestFailed, skipped: vitestSkipped },
    unittest: {
      ...unittest,
      ran: unitLine ? Number(unitLine[1]) : 0,
      failed: unitLine ? Number(unitLine[2]) : 0,
      skipped: unitLine ? Number(unitLine[3]) : 0,
    },
    tests,
  };
}

function describeFailure(result) {
  const lines = [];
  for (const test of result.tests.filter((t) => t.status === "failed")) {
    lines.push(`  ✗ ${test.file} › ${test.title}`);
    lines.push(
      ...test.failure
        .split("\n")
        .slice(0, 6)
        .map((l) => `      ${l}`),
    );
  }
  if (result.vitest.isTimedOut) lines.push(`  vitest stopped after ${VERSION_DEADLINE_MS / 1000} s`);
  else if (result.vitest.code !== 0 && result.vitest.failed === 0)
    lines.push("  vitest failed outside a test:", ...result.vitest.output.trim().split("\n").slice(-20));
  if (result.unittest.isTimedOut)
    lines.push(`  python unittest stopped after ${VERSION_DEADLINE_MS / 1000} s`);
  else if (result.unittest.code !== 0)
    lines.push("  python unittest output:", ...result.unittest.output.trim().split("\n").slice(-40));
  return lines.join("\n");
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const { root, found } = findInterpreters();
  const wanted = options.versions ?? SUPPORTED_MINORS.map((m) => `3.${m}`);
  const present = wanted.filter((v) => found.has(v));
  const missing = wanted.filter((v) => !found.has(v));
  console.log(`matrix: pyenv root ${root ?? "(none)"}`);
  console.log(`matrix: versions found ${present.map((v) => found.get(v).full).join(", ") || "none"}`);
  console.log(`matrix: versions missing ${missing.join(", ") || "none"}`);
  if (options.list) return 0;
  if (present.length === 0) {
    console.error("matrix: no supported CPython found under pyenv; nothing was tested");
    return 1;
  }
  console.log(
    `matrix: vitest files ${VITEST_FILES.length}; python/tests without ${UNITTEST_EXCLUDED_FILES.join(", ")}`,
  );
  const workDir = mkdtempSync(join(tmpdir(), "evalkit-matrix-"));
  const started = Date.now();
  const results = [];
  try {
    for (const version of present) {
      const { binary } = found.get(version);
      process.stdout.write(`matrix: ${version} (${binary}) ... `);
      const result = await runVersion(version, binary, workDir);
      results.push(result);
      const seconds = (Math.max(result.vitest.ms, result.unittest.ms) / 1000).toFixed(1);
      console.log(`${result.ok ? "ok" : "FAILED"} in ${seconds} s`);
      if (!result.ok) console.log(describeFailure(result));
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const totalMs = Date.now() - started;

  console.log("\nmatrix summary");
  console.log("version  result  vitest pass/fail/skip  unittest ran/fail/skip  seconds");
  for (const r of results) {
    const v = `${r.vitest.passed}/${r.vitest.failed}/${r.vitest.skipped}`;
    const u = `${r.unittest.ran}/${r.unittest.failed}/${r.unittest.skipped}`;
    const s = (Math.max(r.vitest.ms, r.unittest.ms) / 1000).toFixed(1);
    console.log(
      `${r.version.padEnd(8)} ${(r.ok ? "pass" : "FAIL").padEnd(7)} ${v.padEnd(22)} ${u.padEnd(23)} ${s}`,
    );
  }
  for (const version of missing) console.log(`${version.padEnd(8)} missing (not under pyenv)`);

  const slowest = results
    .flatMap((r) => r.tests)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
  console.log("\nslowest tests");
  for (const t of slowest)
    console.log(`${(t.ms / 1000).toFixed(2).padStart(6)} s  ${t.version}  ${t.file} › ${t.title}`);
  console.log(`\nmatrix: ${(totalMs / 1000).toFixed(1)} s in total (budget ${BUDGET_MS / 1000} s)`);
  if (totalMs > BUDGET_MS)
    console.log("matrix: WARNING over budget; trim VITEST_FILES in scripts/run-matrix.mjs");
  const failed = results.filter((r) => !r.ok).map((r) => r.version);
  if (failed.length > 0) {
    console.log(`matrix: FAILED on ${failed.join(", ")}`);
    return 1;
  }
  console.log(`matrix: passed on ${results.map((r) => r.version).join(", ")}`);
  return 0;
}

process.exitCode = await main();
