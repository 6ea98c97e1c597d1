"use strict";
// Ends everything this kernel started when the host is gone or the kernel exits: the processes below it (Linux
// /proc), those that left its tree but still carry the kernel's tag in their environment, its group, itself.
// Orphans the kernel's children leave go to its subreaper parent (python/subreaper_parent.py), which ends them.

const fs = require("node:fs");

const TAG_NAME = "EVALKIT_KERNEL_TAG";
const isLinux = process.platform === "linux";
const pause = new Int32Array(new SharedArrayBuffer(4));

function killTagged(tag) {
  if (!tag || !isLinux) return;
  const needle = TAG_NAME + "=" + tag;
  let entries = [];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return;
  }
  // The parent carries the tag too: when it is the subreaper parent, it must live to end what it adopted.
  const spared = new Set([process.pid, process.ppid]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || spared.has(Number(entry))) continue;
    try {
      if (
        fs
          .readFileSync("/proc/" + entry + "/environ", "latin1")
          .split("\0")
          .includes(needle)
      ) {
        process.kill(Number(entry), "SIGKILL");
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}

function childrenOf(pid) {
  const found = [];
  let tasks = [];
  try {
    tasks = fs.readdirSync("/proc/" + pid + "/task");
  } catch {
    return found;
  }
  for (const task of tasks) {
    try {
      const text = fs.readFileSync("/proc/" + pid + "/task/" + task + "/children", "latin1").trim();
      if (text !== "") for (const child of text.split(" ")) found.push(Number(child));
    } catch {
      // gone meanwhile, or no children files in this kernel (the tag scan and the parent remain)
    }
  }
  return found;
}

/** SIGKILLs every process below this one, a few rounds, for children forked while the walk ran. */
function killOwnTree() {
  if (!isLinux) return;
  for (let round = 0; round < 5; round++) {
    const todo = childrenOf(process.pid);
    if (todo.length === 0) return;
    for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
      todo.push(...childrenOf(pid));
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // exited meanwhile
      }
    }
    Atomics.wait(pause, 0, 0, 1);
  }
}

function endEverything() {
  killOwnTree();
  killTagged(process.env[TAG_NAME]);
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    // not a group leader (under the subreaper parent or a launcher): at least this process goes
  }
  process.kill(process.pid, "SIGKILL");
}

module.exports = { endEverything, killOwnTree };
