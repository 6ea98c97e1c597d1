// Drives the real `evalkit repl` in a pseudo-terminal (tmux): send-keys in, capture-pane out.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
export const SOCKET = `evalkit-repl-test-${process.pid}`;

export const EXIT_MARK = "__REPL_EXITED__";

/**
 * Why the terminal tests cannot run here (no tmux), or undefined when they can. tmux is not among the README's
 * prerequisites, so a developer's `npm test` skips them with this reason; CI installs it and sets
 * EVALKIT_REQUIRE_SYSTEM_TOOLS=1, which makes a missing tmux fail the tests instead.
 */
export function tmuxSkipReason(): string | undefined {
  if (process.env.EVALKIT_REQUIRE_SYSTEM_TOOLS === "1") return undefined;
  if (spawnSync("tmux", ["-V"], { stdio: "ignore", timeout: 10_000 }).status === 0) return undefined;
  const reason = "tmux is not installed (CI installs it; set EVALKIT_REQUIRE_SYSTEM_TOOLS=1 to fail instead)";
  console.warn(`skipping the REPL terminal tests: ${reason}`);
  return reason;
}

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** One REPL running in its own tmux session. */
export class ReplPane {
  readonly name: string;
  readonly home: string;
  private mark = 0;

  constructor(name: string, replArgs: string[], env: Record<string, string> = {}) {
    this.name = name;
    this.home = mkdtempSync(join(tmpdir(), "evalkit-repl-test-"));
    const command = [
      `cd ${shellQuote(ROOT)} &&`,
      `env EVALKIT_HOME=${shellQuote(this.home)} NO_COLOR= FORCE_COLOR= TERM=xterm-256color`,
      ...Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}`),
      `node bin/evalkit.js repl ${replArgs.map(shellQuote).join(" ")};`,
      `echo ${EXIT_MARK}$?; sleep 600`,
    ].join(" ");
    tmux("new-session", "-d", "-s", name, "-x", "200", "-y", "50", command);
  }

  /** Everything the pane shows, scrollback included, without trailing blank lines. */
  lines(): string[] {
    const text = tmux("capture-pane", "-p", "-J", "-N", "-S", "-", "-t", this.name);
    const lines = text.split("\n");
    while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
    return lines;
  }

  /** The visible screen only (no scrollback), without trailing blank lines. */
  screen(): string {
    return tmux("capture-pane", "-p", "-t", this.name).replace(/\s+$/, "");
  }

  /** Polls the visible screen until `predicate` holds; fails with the screen after `timeoutMs`. */
  async waitForScreen(predicate: (screen: string) => boolean, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (predicate(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`pane ${this.name}: screen not as expected:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The visible screen with its colours as escape sequences. */
  screenWithColors(): string {
    return tmux("capture-pane", "-p", "-e", "-t", this.name);
  }

  /** Text that appeared since the last `send` (from the prompt line it was typed at). */
  recent(): string {
    return this.lines().slice(this.mark).join("\n");
  }

  /** Types keys (tmux key names like Enter, C-c, C-d are sent as keys; `literal` text is typed as is). */
  send(...keys: string[]): void {
    this.mark = Math.max(0, this.lines().length - 1);
    tmux("send-keys", "-t", this.name, ...keys);
  }

  type(text: string): void {
    this.mark = Math.max(0, this.lines().length - 1);
    tmux("send-keys", "-t", this.name, "-l", text);
    tmux("send-keys", "-t", this.name, "Enter");
  }

  /** Polls the recent text until `pattern` matches; fails with the pane's content after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.recent().match(pattern);
      if (match) return match;
      if (Date.now() > deadline)
        throw new Error(
          `pane ${this.name}: ${pattern} not seen in ${timeoutMs} ms; pane shows:\n${this.recent()}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits for the next empty prompt (`In [n]:` with nothing typed after it). */
  waitForPrompt(): Promise<RegExpMatchArray> {
    return this.waitFor(/(In|js) \[\d+\]:\s*$/);
  }

  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** Ends every pane of this test file's tmux server. */
export function killPanes(): void {
  spawnSync("tmux", ["-L", SOCKET, "kill-server"], { stdio: "ignore" });
}
