"use strict";
// Runs one cell in the context: compile, await, report its result or error, and end it with `done`.

const util = require("node:util");
const vm = require("node:vm");
const channel = require("./channel.cjs");
const { state } = require("./cell-state.cjs");
const { toBundle } = require("./bundles.cjs");
const { writeText } = require("./streams.cjs");
const { resetPeak, startMeter } = require("./usage.cjs");

function isErrorLike(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof value.message === "string" &&
    typeof value.stack === "string"
  );
}

// Keeps the user's frames (cells, their modules) and drops the runner's own and Node's internals.
function cleanStack(stack, userLines) {
  const out = [];
  for (const line of String(stack).split("\n")) {
    if (line.trim() === "") continue;
    if (/^\s+at /.test(line)) {
      const cellFrame = /<cell[^>]*>:(\d+):\d+/.exec(line);
      if (cellFrame) {
        const lineNo = Number(cellFrame[1]);
        if (userLines !== null && (lineNo < 1 || lineNo > userLines)) continue;
      } else if (/runner-js[\\/]|node:internal|node:vm|evalmachine/.test(line)) {
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

/** Errors outside any cell's await chain: written to stderr, the kernel lives on. */
function reportStray(prefix, err) {
  writeText("stderr", prefix + describeError(err, null).traceback.join("\n") + "\n");
}

function isThenable(value) {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof value.then === "function"
  );
}

function interruptError() {
  const err = new Error("the cell was interrupted");
  err.name = "InterruptError";
  return err;
}

async function runCell(context, request) {
  const cell = { id: request.id, timers: new Set(), cancelled: false, cancel: null };
  const cancelled = new Promise((_, reject) => {
    cell.cancel = reject;
  });
  cancelled.catch(() => {});
  state.current = cell;
  if (earlyInterrupts.delete(cell.id)) interruptCell(cell.id);
  let status = "ok";
  const meter = startMeter();
  const userLines = request.isAsync ? request.code.split("\n").length - 2 : null;
  // The host's secret for this cell, echoed on the frames that decide its outcome (docs/protocol.md, Forged
  // frames). Kept in this closure only: nothing the cell's context reaches holds it.
  const sealed = typeof request.nonce === "string" ? { nonce: request.nonce } : {};
  try {
    if (request.env) for (const key of Object.keys(request.env)) process.env[key] = String(request.env[key]);
    if (request.cwd) process.chdir(request.cwd);
    if (cell.cancelled) throw interruptError();
    const script = new vm.Script(request.code, {
      filename: request.filename,
      lineOffset: request.lineOffset,
    });
    // breakOnSigint: a synchronous loop at the top of a cell ends on SIGINT with the context kept.
    let value = script.runInContext(context, { displayErrors: false, breakOnSigint: true });
    if (!request.hasResult && !request.isAsync) value = undefined;
    if (isThenable(value)) value = await Promise.race([value, cancelled]);
    if (cell.cancelled) throw interruptError();
    if (request.hasResult && !request.silent && value !== undefined) {
      channel.send({ type: "result", id: cell.id, bundle: toBundle(value), ...sealed });
    }
  } catch (err) {
    status = "error";
    if (err?.code === "ERR_SCRIPT_EXECUTION_INTERRUPTED") cell.cancelled = true;
    const info = cell.cancelled ? describeError(interruptError(), userLines) : describeError(err, userLines);
    if (cell.cancelled) info.traceback = [info.ename + ": " + info.evalue];
    channel.send({ type: "error", id: cell.id, ...info, ...sealed });
  }
  state.current = null;
  channel.send({
    type: "done",
    id: cell.id,
    status: status,
    executionCount: request.executionCount ?? null,
    cancelled: cell.cancelled,
    usage: meter.finish(),
    ...sealed,
  });
  resetPeak();
}

// An interrupt can overtake its cell (cells queue behind the one running): it waits for it here.
const earlyInterrupts = new Set();

// Stops the cell's await chain and the timers it started; the context and its globals stay.
function interruptCell(id) {
  const cell = state.current;
  if (id !== undefined && (cell === null || cell.id !== id)) {
    earlyInterrupts.add(id);
    if (earlyInterrupts.size > 64) earlyInterrupts.delete(earlyInterrupts.values().next().value);
    return;
  }
  if (cell === null || cell.cancelled) return;
  cell.cancelled = true;
  for (const timer of cell.timers) timer.clear();
  cell.timers.clear();
  cell.cancel(interruptError());
}

module.exports = { runCell, interruptCell, reportStray };
