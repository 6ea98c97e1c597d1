"use strict";
// Answers `complete` frames for the REPL's Tab: names, properties, object keys and file paths from the live
// context. Only data properties are followed: a user's getter, a Proxy trap or a function never runs on Tab.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const vm = require("node:vm");

// Taken at the kernel's start (this module loads on the first Tab): a cell can reach (and replace) the shared
// `util` module through require().
const { isProxy, isStringObject } = require("./cell-state.cjs").nodeTypes;

const MAX_MATCHES = 500;
const IDENT = "[A-Za-z_$][\\w$]*";
const CHAIN = IDENT + "(?:\\??\\." + IDENT + ")*";
const KEY = new RegExp("(" + CHAIN + ")\\[\\s*(['\"`])([^'\"`\\\\]*)$");
const PROPERTY = new RegExp("(" + CHAIN + ")\\??\\.([\\w$]*)$");
const NAME = new RegExp(IDENT + "$");
const STRING = /(['"`])([^'"`]*)$/;
const KEYWORDS = (
  "await break case catch class const continue debugger default delete do else export extends false finally " +
  "for function if import in instanceof let new null return static super switch this throw true try typeof " +
  "undefined var void while with yield"
).split(" ");
/** The runner's own helpers in the context, never offered. */
const HIDDEN = /^__evalkit/;

/** A lookup that would run user code, or found nothing: completion offers nothing then. */
class NoValue extends Error {}

/** Getters that are safe to run: V8's own (`Map.prototype.size`) and Node's lazy `process.stdout` & co. */
function isSafeGetter(owner, getter) {
  if (typeof getter !== "function") return false;
  if (owner === process) return true;
  return /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(getter));
}

/** `object[name]` without running user code: walks the prototype chain for the property's descriptor. */
function readProperty(object, name) {
  let target = Object(object);
  while (target !== null) {
    if (isProxy(target)) throw new NoValue();
    const descriptor = Object.getOwnPropertyDescriptor(target, name);
    if (descriptor !== undefined) {
      if ("value" in descriptor) return descriptor.value;
      if (isSafeGetter(target, descriptor.get)) return descriptor.get.call(object);
      throw new NoValue();
    }
    target = Object.getPrototypeOf(target);
  }
  throw new NoValue();
}

function lookup(chain, global) {
  const parts = chain.split(/\??\./);
  let value = readProperty(global, parts[0]);
  for (const part of parts.slice(1)) {
    if (value === null || value === undefined) throw new NoValue();
    value = readProperty(value, part);
  }
  return value;
}

/** Whether the own names of `object` are its elements (an array, a typed array, a string): not worth listing. */
function isIndexed(object) {
  return Array.isArray(object) || ArrayBuffer.isView(object) || isStringObject(object);
}

/** Every string property name of `value` and its prototypes (a Proxy stops the walk: its traps are user code). */
function propertyNames(value) {
  const names = new Set();
  let target = Object(value);
  let isOwn = true;
  while (target !== null && !isProxy(target)) {
    if (isOwn && isIndexed(target)) {
      // A million elements would be a million names; `length` is the one worth offering.
      if (Array.isArray(target) || isStringObject(target)) names.add("length");
    } else {
      for (const name of Object.getOwnPropertyNames(target)) names.add(name);
    }
    isOwn = false;
    target = Object.getPrototypeOf(target);
  }
  return names;
}

function keys(line, global) {
  const match = KEY.exec(line);
  if (!match) return undefined;
  const start = match.index + match[0].length - match[3].length;
  let object;
  try {
    object = lookup(match[1], global);
  } catch {
    return { start, matches: [] };
  }
  if (object === null || typeof object !== "object" || isProxy(object) || isIndexed(object)) {
    return { start, matches: [] };
  }
  const quote = match[2];
  const typed = match[3];
  const found = Object.keys(object).filter((key) => key.startsWith(typed) && !key.includes(quote));
  return { start, matches: found.map((key) => key + quote + "]") };
}

function paths(line) {
  const match = STRING.exec(line);
  // An odd number of this quote before the one found means it closes a string: the cursor is outside one.
  if (!match || line.slice(0, match.index).split(match[1]).length % 2 === 0) return undefined;
  const typed = match[2];
  const start = match.index + 1;
  const slash = typed.lastIndexOf("/");
  const directory = slash === -1 ? "" : typed.slice(0, slash + 1);
  const partial = typed.slice(slash + 1);
  const expanded = directory.startsWith("~/") ? path.join(os.homedir(), directory.slice(2)) : directory;
  let entries;
  try {
    entries = fs.readdirSync(expanded || ".", { withFileTypes: true });
  } catch {
    return { start, matches: [] };
  }
  const matches = [];
  for (const entry of entries) {
    if (!entry.name.startsWith(partial) || (entry.name.startsWith(".") && !partial.startsWith("."))) continue;
    let isDirectory = entry.isDirectory();
    if (entry.isSymbolicLink()) {
      try {
        isDirectory = fs.statSync(path.join(expanded || ".", entry.name)).isDirectory();
      } catch {
        isDirectory = false;
      }
    }
    matches.push(directory + entry.name + (isDirectory ? "/" : ""));
  }
  return { start, matches };
}

function properties(line, global) {
  const match = PROPERTY.exec(line);
  if (!match) return undefined;
  const typed = match[2];
  const start = match.index + match[0].length - typed.length;
  let value;
  try {
    value = lookup(match[1], global);
  } catch {
    return { start, matches: [] };
  }
  if (value === null || value === undefined) return { start, matches: [] };
  const found = [];
  for (const name of propertyNames(value)) {
    if (!name.startsWith(typed) || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    // `__proto__`-style internals only when asked for.
    if (name.startsWith("__") && !typed.startsWith("_")) continue;
    found.push(name);
  }
  return { start, matches: found };
}

/** Names every context's global has (Object, JSON, …, Object.prototype's): the same in each, so listed once. */
let intrinsicNames;

function names(line, _global, sandbox) {
  const match = NAME.exec(line);
  if (!match) return undefined;
  const typed = match[0];
  // Listing the context's global goes through V8's interceptors (~150 ms for 100 000 names); the sandbox object
  // holds the same user names (and the runner's non-enumerable ones, which the global does not list) directly.
  intrinsicNames ??= [...propertyNames(vm.runInContext("globalThis", vm.createContext({})))];
  const found = [];
  for (const name of Object.getOwnPropertyNames(sandbox)) {
    if (name.startsWith(typed) && !HIDDEN.test(name)) found.push(name);
  }
  for (const name of intrinsicNames) if (name.startsWith(typed)) found.push(name);
  for (const word of KEYWORDS) if (word.startsWith(typed)) found.push(word);
  return { start: match.index, matches: found };
}

/** `{start, matches}`: replace `code.slice(start, cursor)` with one of `matches` (sorted, at most 500). */
function complete(context, code, cursor) {
  const source = typeof code === "string" ? code : "";
  const at = Number.isInteger(cursor) && cursor >= 0 && cursor <= source.length ? cursor : source.length;
  const text = source.slice(0, at);
  const lineStart = text.lastIndexOf("\n") + 1;
  const line = text.slice(lineStart);
  const global = vm.runInContext("globalThis", context);
  for (const finder of [keys, paths, properties, names]) {
    let found;
    try {
      found = finder(line, global, context);
    } catch {
      found = { start: line.length, matches: [] };
    }
    if (found !== undefined) {
      const matches = [...new Set(found.matches)].sort().slice(0, MAX_MATCHES);
      return { start: lineStart + found.start, matches };
    }
  }
  return { start: at, matches: [] };
}

module.exports = { complete };
