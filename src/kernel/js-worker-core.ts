// Worker-side JS (as source text): the message loop, stream capture with backpressure, and cell execution in a vm context.
// Kept as a string so the same code starts from compiled dist/ and from the TypeScript sources under vitest.
// Rules for this text: plain JS, no template literals (the string itself is a template), no imports of project code.

export const JS_WORKER_CORE = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const vm = require("node:vm");
const util = require("node:util");
const fs = require("node:fs");
const path = require("node:path");
const { EventEmitter } = require("node:events");
const { StringDecoder } = require("node:string_decoder");

const MAX_CHUNK_BYTES = 32768;
const SAFE_CHUNK_CHARS = 10922; // 3 UTF-8 bytes per UTF-16 unit at most: always fits in MAX_CHUNK_BYTES
const COALESCE_MS = 4;
// Shared with the host: [0] stream characters posted but not yet consumed (backpressure),
// [1] bytes of unflushed stream text mirrored in tailBytes, [2] its stream (1 stdout, 2 stderr).
const shared = new Int32Array(workerData.shared, 0, 4);
const tailBytes = Buffer.from(workerData.shared, 16, workerData.tailCapacity);
const BACKLOG_LIMIT = workerData.backlogLimit;
let kernelCwd = workerData.cwd;
let current = null;
let pendingName = null;
let pendingText = "";
let pendingBytes = 0;
let pendingSince = 0;
let lastPostAt = 0;
let isFlushScheduled = false;

function post(message) {
  flushStreams();
  parentPort.postMessage(message);
}

// The host subtracts what it consumed; a cell that prints faster than the host reads blocks here instead of
// queueing unbounded messages in the host's memory.
function waitForBacklog() {
  let pending = Atomics.load(shared, 0);
  while (pending > BACKLOG_LIMIT) {
    Atomics.wait(shared, 0, pending, 100);
    pending = Atomics.load(shared, 0);
  }
}

function postChunks(name, text) {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + MAX_CHUNK_BYTES);
    if (end - start > SAFE_CHUNK_CHARS && Buffer.byteLength(text.slice(start, end)) > MAX_CHUNK_BYTES) {
      end = start + SAFE_CHUNK_CHARS;
    }
    if (end < text.length) {
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    const piece = text.slice(start, end);
    waitForBacklog();
    Atomics.add(shared, 0, piece.length);
    parentPort.postMessage({ t: "stream", name: name, text: piece });
    start = end;
  }
  lastPostAt = performance.now();
}

function flushStreams() {
  if (pendingName === null) return;
  const name = pendingName;
  const text = pendingText;
  pendingName = null;
  pendingText = "";
  pendingBytes = 0;
  Atomics.store(shared, 1, 0);
  postChunks(name, text);
}

function flushSoon() {
  isFlushScheduled = false;
  flushStreams();
}

// Small writes are coalesced (a print loop would otherwise cost one message per line). The unflushed text is
// mirrored into shared memory so a worker killed in a busy loop still hands its last lines to the host.
function emitStream(name, text) {
  if (typeof text !== "string" || text.length === 0) return;
  const bytes = Buffer.byteLength(text);
  if (pendingName !== null && (pendingName !== name || pendingBytes + bytes > MAX_CHUNK_BYTES)) flushStreams();
  if (bytes > MAX_CHUNK_BYTES) {
    postChunks(name, text);
    return;
  }
  const now = performance.now();
  if (pendingName === null) {
    pendingName = name;
    pendingSince = now;
    Atomics.store(shared, 2, name === "stdout" ? 1 : 2);
  }
  tailBytes.write(text, pendingBytes, "utf8");
  pendingText += text;
  pendingBytes += bytes;
  Atomics.store(shared, 1, pendingBytes);
  if (now - lastPostAt > COALESCE_MS || now - pendingSince > COALESCE_MS) {
    flushStreams();
  } else if (!isFlushScheduled) {
    isFlushScheduled = true;
    setImmediate(flushSoon);
  }
}

function makeSink(name) {
  const sink = new EventEmitter();
  sink.write = function (chunk) {
    emitStream(name, String(chunk));
    return true;
  };
  return sink;
}

const cellConsole = new console.Console({ stdout: makeSink("stdout"), stderr: makeSink("stderr"), colorMode: false });

// Libraries that write to process.stdout directly go through the same ordered channel as console.log.
function patchProcessStream(stream, name) {
  const decoder = new StringDecoder("utf8");
  stream.write = function (chunk, encoding, callback) {
    if (typeof encoding === "function") {
      callback = encoding;
      encoding = undefined;
    }
    let text;
    if (typeof chunk === "string") {
      text = encoding && encoding !== "utf8" && encoding !== "utf-8" ? Buffer.from(chunk, encoding).toString("utf8") : chunk;
    } else if (chunk instanceof Uint8Array) {
      text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } else {
      text = String(chunk);
    }
    emitStream(name, text);
    if (typeof callback === "function") process.nextTick(callback);
    return true;
  };
}
patchProcessStream(process.stdout, "stdout");
patchProcessStream(process.stderr, "stderr");

// Workers cannot chdir: the kernel's directory is virtual (require, import, read/write, process.cwd, path.resolve).
process.cwd = function () {
  return kernelCwd;
};
process.chdir = function (dir) {
  const target = path.resolve(kernelCwd, String(dir));
  if (!fs.statSync(target).isDirectory()) throw new Error("ENOTDIR: not a directory, chdir '" + target + "'");
  kernelCwd = target;
};

// The worker shares the host's pid: a cell signalling "itself" would end the host and every kernel it runs.
function readHostGroup() {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return NaN;
  }
}
const hostGroup = readHostGroup();
function guardHostSignals(original) {
  return function (pid, ...rest) {
    const target = Number(pid);
    if (target === process.pid || target === 0 || target === -1 || target === -process.pid || target === -hostGroup) {
      const error = new Error(
        "process.kill(" + pid + ") would signal the evalkit host this JS cell runs in, so it was refused " +
          "(throw to end the cell; process.exit() restarts the JS kernel)",
      );
      error.code = "EPERM";
      throw error;
    }
    return original.call(process, pid, ...rest);
  };
}
process.kill = guardHostSignals(process.kill);
if (typeof process._kill === "function") process._kill = guardHostSignals(process._kill);

function trackTimer(create, clear, isRepeating) {
  const wrapped = function (callback, ...rest) {
    const cell = current;
    if (cell === null || typeof callback !== "function") return create(callback, ...rest);
    let handle;
    const entry = { clear: function () { clear(handle); } };
    handle = create(function (...args) {
      if (!isRepeating) cell.timers.delete(entry);
      return callback.apply(this, args);
    }, ...rest);
    cell.timers.add(entry);
    return handle;
  };
  if (create[util.promisify.custom]) wrapped[util.promisify.custom] = create[util.promisify.custom];
  return wrapped;
}

function isErrorLike(value) {
  return value !== null && typeof value === "object" && typeof value.message === "string" && typeof value.stack === "string";
}

// Keeps the user's frames (cells, their modules) and drops the kernel's own and Node's internals.
function cleanStack(stack, userLines) {
  const out = [];
  for (const line of String(stack).split("\n")) {
    if (line.trim() === "") continue;
    if (/^\s+at /.test(line)) {
      const cellFrame = /<cell[^>]*>:(\d+):\d+/.exec(line);
      if (cellFrame) {
        const lineNo = Number(cellFrame[1]);
        if (userLines !== null && (lineNo < 1 || lineNo > userLines)) continue;
      } else if (/\[worker eval\]|node:internal|node:vm|evalmachine/.test(line)) {
        continue;
      }
    }
    out.push(line);
  }
  return out;
}

function describeError(err, userLines) {
  if (isErrorLike(err)) {
    const ename = String(err.name || "Error");
    const evalue = String(err.message);
    const traceback = cleanStack(err.stack, userLines);
    if (traceback.length === 0) traceback.push(ename + ": " + evalue);
    return { ename: ename, evalue: evalue, traceback: traceback };
  }
  const shown = util.inspect(err);
  return { ename: "Uncaught", evalue: shown, traceback: ["Uncaught " + shown] };
}

function formatStray(prefix, err) {
  const info = describeError(err, null);
  return prefix + info.traceback.join("\n") + "\n";
}

process.on("uncaughtException", function (err) {
  emitStream("stderr", formatStray("Uncaught exception (outside the cell's await chain):\n", err));
});
process.on("unhandledRejection", function (reason) {
  emitStream("stderr", formatStray("Unhandled promise rejection:\n", reason));
});

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
}

function interruptError() {
  const err = new Error("the cell was interrupted");
  err.name = "InterruptError";
  return err;
}

async function runCell(msg) {
  const cell = { id: msg.id, timers: new Set(), cancelled: false, cancel: null };
  const cancelled = new Promise(function (_, reject) {
    cell.cancel = reject;
  });
  cancelled.catch(function () {});
  current = cell;
  let status = "ok";
  const userLines = msg.isAsync ? msg.code.split("\n").length - 2 : null;
  try {
    if (msg.env) for (const key of Object.keys(msg.env)) process.env[key] = String(msg.env[key]);
    if (msg.cwd) process.chdir(msg.cwd);
    const script = new vm.Script(msg.code, { filename: msg.filename, lineOffset: msg.lineOffset });
    let value = script.runInContext(context, { displayErrors: false });
    if (!msg.hasResult && !msg.isAsync) value = undefined;
    if (isThenable(value)) value = await Promise.race([value, cancelled]);
    if (cell.cancelled) throw interruptError();
    if (msg.hasResult && !msg.silent && value !== undefined) {
      post({ t: "output", output: { type: "result", data: toBundle(value) } });
    }
  } catch (err) {
    status = "error";
    const info = cell.cancelled ? describeError(interruptError(), userLines) : describeError(err, userLines);
    if (cell.cancelled) info.traceback = [info.ename + ": " + info.evalue];
    post({ t: "output", output: { type: "error", ename: info.ename, evalue: info.evalue, traceback: info.traceback } });
  }
  current = null;
  post({ t: "done", id: msg.id, status: status, cancelled: cell.cancelled });
}

// Stops the cell's await chain and the timers it started; the context and its globals stay.
function interruptCell(id) {
  const cell = current;
  if (cell === null || cell.id !== id || cell.cancelled) return;
  cell.cancelled = true;
  for (const timer of cell.timers) timer.clear();
  cell.timers.clear();
  cell.cancel(interruptError());
}
`;

// biome-ignore lint/complexity/noUselessStringRaw: worker text stays raw so escapes written in it reach the worker as written
export const JS_WORKER_MAIN = String.raw`
const context = createCellContext();
parentPort.on("message", function (msg) {
  if (msg.t === "exec") runCell(msg);
  else if (msg.t === "interrupt") interruptCell(msg.id);
  else if (msg.t === "reply") settleCall(msg);
});
post({ t: "ready", node: process.version, cwd: kernelCwd });
`;
