// Idle memory per session: N Python kernels started through the built library, each runs `1+1`, then sit idle;
// PSS summed over every process the host started for them (runners, guards, parents), divided by N.
// Flags: --sessions N (50), --python PATH (/usr/bin/python3), --root DIR (the package whose dist/ to load: an
//        older build to compare), --ipykernel K (K ipykernel sessions for comparison, 5; 0 skips),
//        --write (append a row to the table of bench/RESULTS-idle-memory.md), --json.
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
};
const here = fileURLToPath(new URL(".", import.meta.url));
const sessions = Number(option("--sessions", "50"));
const python = option("--python", "/usr/bin/python3");
const root = resolve(option("--root", join(here, "..")));
const ipykernelSessions = Number(option("--ipykernel", "5"));
const log = (text) => process.stderr.write(`${text}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** ppid -> children, from one scan of /proc. */
function readChildren() {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Every process below `rootPid`. */
function descendantsOf(rootPid) {
  const children = readChildren();
  const found = [];
  const todo = [rootPid];
  while (todo.length > 0) {
    for (const child of children.get(todo.pop()) ?? []) {
      found.push(child);
      todo.push(child);
    }
  }
  return found;
}

/** Proportional set size of `pid` in bytes (0 when it is gone). */
function pssOf(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "latin1");
    const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
  } catch {
    return "?";
  }
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(2);

async function measureEvalkit() {
  const { PythonKernel } = await import(pathToFileURL(join(root, "dist", "index.js")).href);
  const kernels = [];
  const started = Date.now();
  for (let i = 0; i < sessions; i++) {
    const kernel = new PythonKernel({ python, cwd: os.tmpdir() });
    await kernel.start();
    await kernel.execute("1+1");
    kernels.push(kernel);
  }
  log(`started ${sessions} kernels in ${Date.now() - started} ms`);
  await sleep(1500); // settle: threads parked, start-up garbage freed
  const pids = descendantsOf(process.pid);
  const byCommand = new Map();
  let total = 0;
  for (const pid of pids) {
    const pss = pssOf(pid);
    total += pss;
    const command = commandOf(pid)
      .replace(/\/\S*\//g, "")
      .slice(0, 70);
    const entry = byCommand.get(command) ?? { count: 0, pss: 0 };
    entry.count += 1;
    entry.pss += pss;
    byCommand.set(command, entry);
  }
  for (const kernel of kernels) await kernel.shutdown();
  return { processes: pids.length, perSession: total / sessions, byCommand };
}

/** The floor: N bare interpreters (`python -u -c <read stdin>`, site imported as in a kernel), idle. */
async function measureBarePython(count) {
  const children = [];
  try {
    for (let i = 0; i < count; i++) {
      children.push(
        spawn(python, ["-u", "-c", "import sys; sys.stdin.read()"], { stdio: ["pipe", "ignore", "ignore"] }),
      );
    }
    await sleep(1500);
    let total = 0;
    for (const child of children) total += pssOf(child.pid);
    return total / count;
  } finally {
    for (const child of children) child.kill("SIGKILL");
  }
}

/** K ipykernel processes (`python -m ipykernel_launcher -f conn.json`), idle after start-up. */
async function measureIpykernel(count) {
  if (count <= 0) return undefined;
  const dir = mkdtempSync(join(os.tmpdir(), "evalkit-idle-ipk-"));
  const children = [];
  try {
    for (let i = 0; i < count; i++) {
      const file = join(dir, `kernel-${i}.json`);
      const port = 43000 + i * 10;
      const connection = {
        transport: "tcp",
        ip: "127.0.0.1",
        shell_port: port,
        iopub_port: port + 1,
        stdin_port: port + 2,
        control_port: port + 3,
        hb_port: port + 4,
        key: "",
        signature_scheme: "hmac-sha256",
      };
      writeFileSync(file, JSON.stringify(connection));
      children.push(spawn(python, ["-m", "ipykernel_launcher", "-f", file], { stdio: "ignore" }));
    }
    await sleep(8000);
    let total = 0;
    for (const child of children) {
      if (child.exitCode !== null) return undefined; // no ipykernel here
      total += pssOf(child.pid);
      for (const pid of descendantsOf(child.pid)) total += pssOf(pid);
    }
    return total / count;
  } finally {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

const version = await new Promise((done) => {
  const child = spawn(python, ["-c", "import sys; print(sys.version.split()[0])"]);
  let text = "";
  child.stdout.on("data", (chunk) => {
    text += chunk;
  });
  child.on("close", () => done(text.trim() || "?"));
});
const evalkit = await measureEvalkit();
const bare = await measureBarePython(sessions);
const ipykernel = await measureIpykernel(ipykernelSessions);
const result = {
  when: new Date().toISOString(),
  python: `${python} (${version})`,
  sessions,
  processesPerSession: evalkit.processes / sessions,
  pssPerSessionMb: Number(mb(evalkit.perSession)),
  barePythonPssMb: Number(mb(bare)),
  ipykernelPssMb: ipykernel === undefined ? null : Number(mb(ipykernel)),
};
if (argv.includes("--json")) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  log(`python ${result.python}, ${sessions} idle sessions`);
  for (const [command, entry] of evalkit.byCommand) {
    log(`  ${String(entry.count).padStart(4)} x ${mb(entry.pss / entry.count)} MB  ${command}`);
  }
  log(`processes per session: ${result.processesPerSession.toFixed(2)}`);
  log(
    `PSS per idle session: ${result.pssPerSessionMb} MB (a bare interpreter: ${result.barePythonPssMb} MB)`,
  );
  if (ipykernel !== undefined)
    log(`ipykernel (${ipykernelSessions} kernels): ${result.ipykernelPssMb} MB each`);
}
if (argv.includes("--write")) {
  const file = join(here, "RESULTS-idle-memory.md");
  const build = option("--root", "") === "" ? "this build" : root;
  const row = `| ${result.when.slice(11, 16)} | ${build} | ${result.python} | ${sessions} | ${result.processesPerSession.toFixed(2)} | ${result.pssPerSessionMb} MB | ${result.barePythonPssMb} MB | ${result.ipykernelPssMb === null ? "-" : `${result.ipykernelPssMb} MB`} |\n`;
  appendFileSync(file, row);
}
