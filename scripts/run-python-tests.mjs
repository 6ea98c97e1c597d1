// Runs the runner's Python unit tests (python/tests) with python3 -m unittest, on Debian's python when present.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const python =
  process.env.EVALKIT_TEST_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
console.log(`python unit tests on ${python}`);
const result = spawnSync(python, ["-m", "unittest", "discover", "-s", "python/tests"], {
  stdio: "inherit",
  env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
});
process.exit(result.status ?? 1);
