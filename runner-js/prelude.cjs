"use strict";
// The helpers every cell sees: display, log, phase, env, read, write, and the host bridge (agent, completion, tool, parallel).

const fs = require("node:fs");
const path = require("node:path");
const util = require("node:util");
const channel = require("./channel.cjs");
const { toBundle, looksLikeBundle, normalizeBundle } = require("./bundles.cjs");
const { state, currentId } = require("./cell-state.cjs");

let statusMime = "application/x-evalkit-status";

function setStatusMime(mime) {
  statusMime = mime;
}

function display(value, options) {
  const opts = options || {};
  const raw = opts.raw === true || (looksLikeBundle(value) && value.raw === true);
  let data;
  if (raw) {
    if (!looksLikeBundle(value)) {
      throw new TypeError("display(bundle, { raw: true }) needs an object whose keys are MIME types");
    }
    data = normalizeBundle(value);
  } else if (typeof value === "string") {
    data = { "text/plain": value };
  } else {
    data = toBundle(value);
  }
  const frame = { type: "display", id: currentId(), bundle: data };
  if (opts.metadata) frame.metadata = opts.metadata;
  if (opts.displayId !== undefined) frame.displayId = String(opts.displayId);
  if (opts.update === true) frame.update = true;
  channel.send(frame);
}

function emitStatus(event) {
  const data = {};
  data[statusMime] = event;
  data["text/plain"] = event.op === "phase" ? "== " + event.title + " ==" : String(event.message);
  channel.send({ type: "display", id: currentId(), bundle: data });
}

function log(message) {
  emitStatus({ op: "log", message: typeof message === "string" ? message : util.inspect(message) });
}

function phase(title) {
  emitStatus({ op: "phase", title: String(title) });
}

function env(...args) {
  const [key, value] = args;
  if (key === undefined) {
    const copy = {};
    for (const k of Object.keys(process.env).sort()) copy[k] = process.env[k];
    return copy;
  }
  const name = String(key);
  if (args.length >= 2) {
    if (value === null || value === undefined) delete process.env[name];
    else process.env[name] = String(value);
  }
  return process.env[name];
}

function read(file, options) {
  const opts = options || {};
  const text = fs.readFileSync(path.resolve(String(file)), "utf8");
  if (opts.offset === undefined && opts.limit === undefined) return text;
  const lines = text.split("\n");
  const first = Math.max(1, Number(opts.offset === undefined ? 1 : opts.offset));
  const count = opts.limit === undefined ? lines.length : Math.max(0, Number(opts.limit));
  return lines.slice(first - 1, first - 1 + count).join("\n");
}

function write(file, content) {
  const target = path.resolve(String(file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content instanceof Uint8Array ? content : String(content));
  return target;
}

let callSerial = 0;
const pendingCalls = new Map();

function callHost(method, params) {
  return new Promise((resolve, reject) => {
    const callId = "j" + ++callSerial;
    let line;
    try {
      line = JSON.parse(JSON.stringify(params === undefined ? {} : params));
    } catch (err) {
      reject(new TypeError(method + "() arguments must be plain data: " + err.message));
      return;
    }
    pendingCalls.set(callId, { resolve: resolve, reject: reject });
    channel.send({ type: "call", id: currentId(), callId: callId, method: method, params: line });
  });
}

/** A `reply` frame from the host settles the promise of the call it names. */
function settleCall(frame) {
  const pending = pendingCalls.get(frame.callId);
  if (!pending) return;
  pendingCalls.delete(frame.callId);
  if (frame.ok) {
    pending.resolve(frame.value);
    return;
  }
  const err = new state.intrinsics.Error(String(frame.error?.message || "host call failed"));
  err.name = String(frame.error?.name || "Error");
  pending.reject(err);
}

function withPrompt(prompt, options) {
  if (prompt !== null && typeof prompt === "object" && !Array.isArray(prompt))
    return Object.assign({}, prompt);
  return Object.assign({}, options || {}, { prompt: prompt });
}

function agent(prompt, options) {
  return callHost("agent", withPrompt(prompt, options));
}

function completion(prompt, options) {
  return callHost("completion", withPrompt(prompt, options));
}

const tool = new Proxy(Object.create(null), {
  get(_, name) {
    if (typeof name !== "string" || name === "then") return undefined;
    return (args) => callHost("tool", { name: name, args: args === undefined ? {} : args });
  },
});

// Everything runs at once (or options.concurrency at a time); results keep input order; the lowest-index failure wins.
async function parallel(thunks, options) {
  if (!Array.isArray(thunks)) throw new TypeError("parallel() takes an array of functions or promises");
  const limit = Math.max(1, Number(options?.concurrency || thunks.length || 1));
  const results = new Array(thunks.length);
  const failures = new Array(thunks.length);
  let next = 0;
  async function lane() {
    while (next < thunks.length) {
      const index = next++;
      const item = thunks[index];
      try {
        results[index] = await (typeof item === "function" ? item() : item);
      } catch (err) {
        failures[index] = { error: err };
      }
    }
  }
  const lanes = [];
  for (let i = 0; i < Math.min(limit, thunks.length); i++) lanes.push(lane());
  await Promise.all(lanes);
  for (const failure of failures) if (failure) throw failure.error;
  return state.intrinsics.Array.from(results);
}

const prelude = { display, env, read, write, log, phase, agent, completion, tool, parallel };

module.exports = { prelude, settleCall, setStatusMime };
