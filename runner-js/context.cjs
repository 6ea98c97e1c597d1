"use strict";
// The vm context cells run in: shared Node globals, the cell console, timers the interrupt can clear, the prelude.

const util = require("node:util");
const vm = require("node:vm");
const { state } = require("./cell-state.cjs");
const { cellConsole } = require("./streams.cjs");
const { cellRequire, importFromCwd } = require("./imports.cjs");
const { prelude } = require("./prelude.cjs");

const SHARED_GLOBALS = [
  "Buffer",
  "URL",
  "URLSearchParams",
  "TextEncoder",
  "TextDecoder",
  "AbortController",
  "AbortSignal",
  "EventTarget",
  "Event",
  "MessageChannel",
  "MessagePort",
  "MessageEvent",
  "BroadcastChannel",
  "Blob",
  "File",
  "performance",
  "fetch",
  "Headers",
  "Request",
  "Response",
  "FormData",
  "WebSocket",
  "structuredClone",
  "atob",
  "btoa",
  "queueMicrotask",
  "crypto",
  "navigator",
  "DOMException",
  "clearTimeout",
  "clearInterval",
  "clearImmediate",
];

// Timers started by a cell are remembered so an interrupt can stop them; the callbacks run as usual.
function trackTimer(create, clear, isRepeating) {
  const wrapped = (callback, ...rest) => {
    const cell = state.current;
    if (cell === null || typeof callback !== "function") return create(callback, ...rest);
    let handle;
    const entry = { clear: () => clear(handle) };
    handle = create(
      function (...args) {
        if (!isRepeating) cell.timers.delete(entry);
        return callback.apply(this, args);
      },
      ...rest,
    );
    cell.timers.add(entry);
    return handle;
  };
  if (create[util.promisify.custom]) wrapped[util.promisify.custom] = create[util.promisify.custom];
  return wrapped;
}

function defineHidden(target, name, value) {
  Object.defineProperty(target, name, {
    value: value,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

// Node defines several web globals (fetch and its classes, crypto, navigator, ...) as getters that load their
// module on first use; reading them all here cost every kernel ~30 ms of start-up (undici alone). Such a global
// stays lazy in the cell context too: read from the kernel's own global on first use, then a plain property.
function defineShared(target, name) {
  const own = Object.getOwnPropertyDescriptor(globalThis, name);
  if (own === undefined || typeof own.get !== "function") {
    defineHidden(target, name, globalThis[name]);
    return;
  }
  Object.defineProperty(target, name, {
    get() {
      const value = globalThis[name];
      defineHidden(target, name, value);
      return value;
    },
    set(value) {
      defineHidden(target, name, value);
    },
    configurable: true,
    enumerable: false,
  });
}

/** The one context every cell of this kernel runs in. */
function createCellContext() {
  const sandbox = {};
  for (const name of SHARED_GLOBALS) if (name in globalThis) defineShared(sandbox, name);
  defineHidden(sandbox, "process", process);
  defineHidden(sandbox, "console", cellConsole);
  defineHidden(sandbox, "require", cellRequire);
  defineHidden(sandbox, "setTimeout", trackTimer(setTimeout, clearTimeout, false));
  defineHidden(sandbox, "setInterval", trackTimer(setInterval, clearInterval, true));
  defineHidden(sandbox, "setImmediate", trackTimer(setImmediate, clearImmediate, false));
  for (const name of Object.keys(prelude)) defineHidden(sandbox, name, prelude[name]);
  Object.defineProperty(sandbox, "__evalkit_import", { value: importFromCwd, enumerable: false });
  const context = vm.createContext(sandbox, { name: "evalkit" });
  state.intrinsics = vm.runInContext("({ Array: Array, Error: Error })", context);
  vm.runInContext(
    "Object.defineProperty(globalThis, 'global', { value: globalThis, writable: true, configurable: true })",
    context,
  );
  return context;
}

module.exports = { createCellContext };
