"use strict";
// Entry of the JS kernel process (docs/protocol.md): `node main.cjs <sync-nonce> [status-mime] [host-pid]`.
// fd 0 is /dev/null, fd 1 and fd 2 are the host's capture pipes, fd 3 carries frames both ways.

const channel = require("./channel.cjs");

const { endEverything, killOwnTree } = require("./reap.cjs");

channel.configure(process.argv[2] || "", endEverything);

const { interruptCell, reportStray, runCell } = require("./cells.cjs");
const { createCellContext } = require("./context.cjs");
const { setStatusMime, settleCall } = require("./prelude.cjs");

if (process.argv[3]) setStatusMime(process.argv[3]);

// A cell must not signal the host, nor every process it may reach; its own group is its own business. The
// parent is the host, or the subreaper parent between them (the host's pid comes as argv[4] then).
const parentPid = process.ppid;
const hostPid = Number(process.argv[4]) || 0;
const protectedPids = [parentPid, hostPid || parentPid].filter((pid) => pid > 1);
function guardSignals(original) {
  return function kill(pid, ...rest) {
    const target = Number(pid);
    if (target === -1 || protectedPids.includes(Math.abs(target))) {
      const error = new Error(
        "process.kill(" + pid + ") would signal the evalkit host or every process, so it was refused",
      );
      error.code = "EPERM";
      throw error;
    }
    return original.call(process, pid, ...rest);
  };
}
process.kill = guardSignals(process.kill);

process.on("uncaughtException", (err) =>
  reportStray("Uncaught exception (outside the cell's await chain):\n", err),
);
process.on("unhandledRejection", (reason) => reportStray("Unhandled promise rejection:\n", reason));
process.on("SIGINT", () => interruptCell(undefined));
// process.exit() in a cell, the exit frame: what the cells started goes too (no help from the parent needed).
process.on("exit", killOwnTree);

// A host (or subreaper parent) that dies without closing fd 3 cleanly, or while a cell spins: a thread notices
// the new parent. Under the subreaper parent (the host's pid came as argv[4]), the parent already ends the tree when
// the host goes, so the thread (~3 ms of the main thread to start) waits until the first cell is done instead of
// delaying it; without the parent it starts right after `ready`, before any cell can spin.
let watching = false;
function watchParent() {
  if (watching) return;
  watching = true;
  const { Worker } = require("node:worker_threads");
  const source =
    "const { workerData } = require('node:worker_threads');" +
    "setInterval(() => { if (process.ppid !== workerData.parentPid) require(workerData.reap).endEverything() }, 250);";
  const reap = require("node:path").join(__dirname, "reap.cjs");
  const watcher = new Worker(source, {
    eval: true,
    workerData: { parentPid, reap },
    stdout: true,
    stderr: true,
  });
  watcher.unref();
}

// Ready before the context and the channel's reader exist: the host's first execute frame (its answer to `ready`)
// waits in fd 3's buffer until listen() below, in this same turn, instead of the host's round trip following them.
// The signal and error handlers are in place already, so an interrupt right after `ready` finds them.
channel.send({ type: "ready", pid: process.pid, node: process.version, protocol: 1, cwd: process.cwd() });

let context;
try {
  context = createCellContext();
} catch (err) {
  // After `ready` a throw here would leave a kernel that never reads: end it, and the host reports why.
  require("node:fs").writeSync(
    2,
    "evalkit: the JS kernel could not set up its context: " + String(err?.stack) + "\n",
  );
  process.exit(70);
}
let queue = Promise.resolve();

channel.listen((frame) => {
  switch (frame.type) {
    case "execute":
      queue = queue.then(() => runCell(context, frame));
      if (!watching) queue = queue.then(() => setImmediate(watchParent));
      return;
    case "interrupt":
      interruptCell(frame.id);
      return;
    case "reply":
      settleCall(frame);
      return;
    case "complete":
      // Answered between cells and while a cell awaits; a synchronous loop delays it (the host gives up).
      // Loaded on the first Tab, off the kernel's start.
      channel.send({
        type: "complete_reply",
        id: frame.id,
        ...require("./completion.cjs").complete(context, frame.code, frame.cursor),
      });
      return;
    case "exit":
      process.exit(0);
      return;
    default:
      // As the Python runner does: a host waiting for an answer (is_complete, say) learns it will get none.
      channel.send({ type: "protocol_error", reason: "unknown frame type " + JSON.stringify(frame.type) });
  }
});

if (!hostPid) setImmediate(watchParent);
