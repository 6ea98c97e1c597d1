// Worker-side JS (as source text): result bundles, the prelude helpers, host bridge calls and the cell context.
// Same text rules as js-worker-core.ts: plain JS, no template literals.

export const JS_WORKER_PRELUDE = String.raw`
const STATUS_MIME = workerData.statusMime;
const JSON_NODE_LIMIT = 20000;

// True for data that survives JSON unchanged: plain objects (any realm), arrays, strings, finite numbers, booleans, null.
function isPlainData(value) {
  let nodes = 0;
  const seen = new Set();
  function check(v, depth) {
    if (++nodes > JSON_NODE_LIMIT || depth > 64) return false;
    if (v === null || typeof v === "string" || typeof v === "boolean") return true;
    if (typeof v === "number") return Number.isFinite(v);
    if (typeof v !== "object" || seen.has(v)) return false;
    seen.add(v);
    let ok;
    if (Array.isArray(v)) {
      ok = Object.keys(v).length === v.length && v.every(function (item) { return check(item, depth + 1); });
    } else {
      const proto = Object.getPrototypeOf(v);
      const isPlain = proto === null || Object.getPrototypeOf(proto) === null;
      ok = isPlain && Object.getOwnPropertySymbols(v).length === 0 &&
        Object.keys(v).every(function (k) {
          const d = Object.getOwnPropertyDescriptor(v, k);
          return d !== undefined && "value" in d && check(d.value, depth + 1);
        });
    }
    seen.delete(v);
    return ok;
  }
  return check(value, 0);
}

function toBundle(value) {
  const bundle = { "text/plain": util.inspect(value, { colors: false }) };
  if (value !== null && typeof value === "object" && isPlainData(value)) {
    bundle["application/json"] = JSON.parse(JSON.stringify(value));
  }
  return bundle;
}

function looksLikeBundle(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value).filter(function (k) { return k !== "raw"; });
  return keys.length > 0 && keys.every(function (k) { return k.includes("/"); });
}

// Bytes in a bundle (an image Buffer) travel as base64, the way every MIME bundle carries binary data.
function normalizeBundle(bundle) {
  const out = {};
  for (const key of Object.keys(bundle)) {
    if (key === "raw") continue;
    const v = bundle[key];
    out[key] = v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") : v;
  }
  return out;
}

function display(value, options) {
  const opts = options || {};
  const raw = opts.raw === true || (looksLikeBundle(value) && value.raw === true);
  let data;
  if (raw) {
    if (!looksLikeBundle(value)) throw new TypeError("display(bundle, { raw: true }) needs an object whose keys are MIME types");
    data = normalizeBundle(value);
  } else if (typeof value === "string") {
    data = { "text/plain": value };
  } else {
    data = toBundle(value);
  }
  const output = { type: "display", data: data };
  if (opts.metadata) output.metadata = opts.metadata;
  if (opts.displayId !== undefined) output.displayId = String(opts.displayId);
  if (opts.update === true) output.update = true;
  post({ t: "output", output: output });
}

function emitStatus(event) {
  const data = {};
  data[STATUS_MIME] = event;
  data["text/plain"] = event.op === "phase" ? "== " + event.title + " ==" : String(event.message);
  post({ t: "output", output: { type: "display", data: data } });
}

function log(message) {
  emitStatus({ op: "log", message: typeof message === "string" ? message : util.inspect(message) });
}

function phase(title) {
  emitStatus({ op: "phase", title: String(title) });
}

function env(key, value) {
  if (key === undefined) {
    const copy = {};
    for (const k of Object.keys(process.env).sort()) copy[k] = process.env[k];
    return copy;
  }
  const name = String(key);
  if (arguments.length >= 2) {
    if (value === null || value === undefined) delete process.env[name];
    else process.env[name] = String(value);
  }
  return process.env[name];
}

function read(file, options) {
  const opts = options || {};
  const text = fs.readFileSync(path.resolve(kernelCwd, String(file)), "utf8");
  if (opts.offset === undefined && opts.limit === undefined) return text;
  const lines = text.split("\n");
  const first = Math.max(1, Number(opts.offset === undefined ? 1 : opts.offset));
  const count = opts.limit === undefined ? lines.length : Math.max(0, Number(opts.limit));
  return lines.slice(first - 1, first - 1 + count).join("\n");
}

function write(file, content) {
  const target = path.resolve(kernelCwd, String(file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content instanceof Uint8Array ? content : String(content));
  return target;
}

let callSerial = 0;
const pendingCalls = new Map();

function callHost(method, params) {
  return new Promise(function (resolve, reject) {
    const callId = "j" + ++callSerial;
    pendingCalls.set(callId, { resolve: resolve, reject: reject });
    try {
      post({ t: "call", callId: callId, method: method, params: params });
    } catch (err) {
      pendingCalls.delete(callId);
      reject(new TypeError(method + "() arguments must be plain data: " + err.message));
    }
  });
}

function settleCall(msg) {
  const pending = pendingCalls.get(msg.callId);
  if (!pending) return;
  pendingCalls.delete(msg.callId);
  if (msg.ok) {
    pending.resolve(msg.value);
    return;
  }
  const err = new contextIntrinsics.Error(String((msg.error && msg.error.message) || "host call failed"));
  err.name = String((msg.error && msg.error.name) || "Error");
  pending.reject(err);
}

function withPrompt(prompt, options) {
  if (prompt !== null && typeof prompt === "object" && !Array.isArray(prompt)) return Object.assign({}, prompt);
  return Object.assign({}, options || {}, { prompt: prompt });
}

function agent(prompt, options) {
  return callHost("agent", withPrompt(prompt, options));
}

function completion(prompt, options) {
  return callHost("completion", withPrompt(prompt, options));
}

const tool = new Proxy(Object.create(null), {
  get: function (_, name) {
    if (typeof name !== "string" || name === "then") return undefined;
    return function (args) {
      return callHost("tool", { name: name, args: args === undefined ? {} : args });
    };
  },
});

// Everything runs at once (or options.concurrency at a time); results keep input order; the lowest-index failure wins.
async function parallel(thunks, options) {
  if (!Array.isArray(thunks)) throw new TypeError("parallel() takes an array of functions or promises");
  const limit = Math.max(1, Number((options && options.concurrency) || thunks.length || 1));
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
  return contextIntrinsics.Array.from(results);
}

const SHARED_GLOBALS = [
  "Buffer", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "AbortController", "AbortSignal",
  "EventTarget", "Event", "MessageChannel", "MessagePort", "MessageEvent", "BroadcastChannel", "Blob", "File",
  "performance", "fetch", "Headers", "Request", "Response", "FormData", "WebSocket", "structuredClone", "atob",
  "btoa", "queueMicrotask", "crypto", "navigator", "DOMException", "clearTimeout", "clearInterval",
  "clearImmediate",
];

function defineHidden(target, name, value) {
  Object.defineProperty(target, name, { value: value, writable: true, configurable: true, enumerable: false });
}

let contextIntrinsics = null;

function createCellContext() {
  const sandbox = {};
  for (const name of SHARED_GLOBALS) if (name in globalThis) defineHidden(sandbox, name, globalThis[name]);
  defineHidden(sandbox, "process", process);
  defineHidden(sandbox, "console", cellConsole);
  defineHidden(sandbox, "require", cellRequire);
  defineHidden(sandbox, "setTimeout", trackTimer(setTimeout, clearTimeout, false));
  defineHidden(sandbox, "setInterval", trackTimer(setInterval, clearInterval, true));
  defineHidden(sandbox, "setImmediate", trackTimer(setImmediate, clearImmediate, false));
  const prelude = { display, env, read, write, log, phase, agent, completion, tool, parallel };
  for (const name of Object.keys(prelude)) defineHidden(sandbox, name, prelude[name]);
  Object.defineProperty(sandbox, "__evalkit_import", { value: importFromCwd, enumerable: false });
  const created = vm.createContext(sandbox, { name: "evalkit" });
  contextIntrinsics = vm.runInContext("({ Array: Array, Error: Error })", created);
  vm.runInContext("Object.defineProperty(globalThis, 'global', { value: globalThis, writable: true, configurable: true })", created);
  return created;
}
`;
