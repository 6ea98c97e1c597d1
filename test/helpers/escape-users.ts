// Runs evalkit (the built CLI or a library script) as root and as an unprivileged user, for the escape suite.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "./build.js";
import { CLI_PARTS, makeReadableCopy } from "./unprivileged-host.js";

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
/** A PATH without root's private pyenv shims, the same for both users. */
export const USER_PATH = "/usr/local/bin:/usr/bin:/bin";
/** The system interpreter both users can run (numpy and pandas come with it on CI's Debian). */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/** One identity the suite runs as. */
export interface EscapeUser {
  name: "root" | "nobody" | "this user";
  uid: number;
  /** The argv that runs `argv` as this user. */
  wrap(argv: string[]): string[];
  /** A fresh directory this user owns, under the suite's root. */
  makeDir(name: string): string;
  /** Makes `file` (created by the test) this user's. */
  own(file: string): void;
}

const suiteRoot = mkdtempSync(path.join(tmpdir(), "evalkit-escape-"));
// Traversable by both users: root inside a sandbox has no capability over files it does not own (its user
// namespace maps only uid 0), so a 0700 directory of nobody's would be closed to it like to anyone else.
chmodSync(suiteRoot, 0o755);

/** Where the suite keeps its directories (removed by the caller's afterAll). */
export const ESCAPE_ROOT = suiteRoot;

function makeUser(name: EscapeUser["name"], uid: number, wrap: (argv: string[]) => string[]): EscapeUser {
  const own = (file: string) => {
    if (isRoot) chownSync(file, uid, uid);
  };
  return {
    name,
    uid,
    wrap,
    own,
    makeDir(dirName) {
      const dir = path.join(suiteRoot, name.replace(/ /g, "-"), dirName);
      mkdirSync(dir, { recursive: true });
      own(path.dirname(dir));
      own(dir);
      return dir;
    },
  };
}

const asNobody = (argv: string[]) => [
  "setpriv",
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  "--clear-groups",
  ...argv,
];

/** Where the users run evalkit from: the checkout, or a readable copy of it once listEscapeUsers made one. */
let cliRoot = ROOT;

/** The CLI the users run (call after listEscapeUsers). */
export function evalkitBin(): string {
  return path.join(cliRoot, "bin", "evalkit.js");
}

/** Root and nobody when the suite runs as root (CI), else the suite's own user; why one is left out. */
export function listEscapeUsers(): { users: EscapeUser[]; skipped: string[] } {
  if (!isRoot) {
    return {
      users: [makeUser("this user", process.getuid?.() ?? -1, (argv) => argv)],
      skipped: ["root and nobody (the suite does not run as root here)"],
    };
  }
  const users = [makeUser("root", 0, (argv) => argv)];
  const skipped: string[] = [];
  // The checkout may be private (a clone in root's home, mode 700): both users run evalkit from a copy anyone can
  // read, removed when the test file's process ends.
  const copy = makeReadableCopy(CLI_PARTS);
  if (!copy.ok) return { users, skipped: [`nobody (${copy.reason})`] };
  process.once("exit", copy.cleanup);
  cliRoot = copy.dir;
  const probe = asNobody([
    process.execPath,
    "-e",
    `require("fs").accessSync(${JSON.stringify(path.join(cliRoot, "dist"))})`,
  ]);
  const [command, ...args] = probe as [string, ...string[]];
  if (spawnSync(command, args, { stdio: "ignore" }).status === 0)
    users.push(makeUser("nobody", NOBODY, asNobody));
  else skipped.push(`nobody (uid ${NOBODY} cannot read ${cliRoot} or run setpriv)`);
  return { users, skipped };
}

/** What a process printed and how it ended. */
export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `argv` as `user` in `cwd` with a small environment (`env` added), up to `timeoutMs`. */
export function runAs(
  user: EscapeUser,
  argv: string[],
  options: { cwd: string; home: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<RunResult> {
  const [command, ...args] = user.wrap(argv) as [string, ...string[]];
  const env = { PATH: USER_PATH, HOME: options.home, EVALKIT_PYTHON: SYSTEM_PYTHON, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === "") delete env[name as keyof typeof env];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** A cell's part of `evalkit exec --json`. */
export interface ExecCell {
  status: string;
  text: string;
  error?: { ename: string; evalue?: string };
  notices?: string[];
}

/** `evalkit exec --json --sandbox <flags> -c <cell>...` as `user`; the parsed details and the raw run. */
export async function execSandboxed(
  user: EscapeUser,
  cells: string[],
  options: { cwd: string; home: string; flags?: string[]; env?: Record<string, string> },
): Promise<{ cells: ExecCell[]; run: RunResult }> {
  const argv = [process.execPath, evalkitBin(), "exec", "--json", "--sandbox"];
  argv.push(...(options.flags ?? []));
  for (const code of cells) argv.push("-c", code);
  const run = await runAs(user, argv, options);
  let details: { cells?: ExecCell[] };
  try {
    details = JSON.parse(run.stdout) as typeof details;
  } catch {
    throw new Error(
      `evalkit exec printed no JSON (status ${run.status}, stderr: ${run.stderr.slice(-2000)})`,
    );
  }
  return { cells: details.cells ?? [], run };
}

/** Writes a library script (an ES module importing evalkit's dist) the user can run; its path. */
export function writeScript(user: EscapeUser, name: string, body: string): string {
  const dir = user.makeDir("scripts");
  const file = path.join(dir, `${name}.mjs`);
  const entry = JSON.stringify(path.join(cliRoot, "dist", "index.js"));
  writeFileSync(file, `import * as evalkit from ${entry};\n${body}\n`);
  user.own(file);
  return file;
}
