"use strict";
// Ends everything this kernel started when the host is gone: its process group, then the processes that
// left the group but still carry the kernel's tag in their environment (Linux /proc), then itself.

const fs = require("node:fs");

const TAG_NAME = "EVALKIT_KERNEL_TAG";

function killTagged(tag) {
  if (!tag || process.platform !== "linux") return;
  const needle = TAG_NAME + "=" + tag;
  let entries = [];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
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

function endEverything() {
  killTagged(process.env[TAG_NAME]);
  try {
    process.kill(-process.pid, "SIGKILL");
  } catch {
    // not a group leader (started through a launcher): at least this process goes
  }
  process.kill(process.pid, "SIGKILL");
}

module.exports = { endEverything };
