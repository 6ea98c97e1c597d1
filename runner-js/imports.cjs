"use strict";
// `require` and `import()` for cells, resolved from the kernel's working directory like a file there would.

const fs = require("node:fs");
const path = require("node:path");
const { createRequire, builtinModules } = require("node:module");
const { pathToFileURL } = require("node:url");

const IMPORT_CONDITIONS = ["import", "node", "module-sync", "default"];

function requireFromCwd() {
  return createRequire(path.join(process.cwd(), "[evalkit cell]"));
}

const cellRequire = function require(id) {
  return requireFromCwd()(id);
};
cellRequire.resolve = function resolve(id, options) {
  return requireFromCwd().resolve(id, options);
};
cellRequire.cache = require.cache;

function splitPackageSpecifier(spec) {
  const parts = spec.split("/");
  const nameLength = spec.startsWith("@") ? 2 : 1;
  const rest = parts.slice(nameLength).join("/");
  return { name: parts.slice(0, nameLength).join("/"), subpath: rest ? "./" + rest : "." };
}

function pickTarget(target) {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const picked = pickTarget(item);
      if (picked) return picked;
    }
    return null;
  }
  if (target && typeof target === "object") {
    for (const key of Object.keys(target)) {
      if (!IMPORT_CONDITIONS.includes(key)) continue;
      const picked = pickTarget(target[key]);
      if (picked) return picked;
    }
  }
  return null;
}

// The subset of package "exports" resolution that matters here: exact subpaths, "*" patterns, import conditions.
function resolveExports(exportsField, subpath) {
  const isConditionMap =
    typeof exportsField === "object" &&
    exportsField !== null &&
    !Array.isArray(exportsField) &&
    !Object.keys(exportsField).some((k) => k.startsWith("."));
  if (typeof exportsField === "string" || Array.isArray(exportsField) || isConditionMap) {
    return subpath === "." ? pickTarget(exportsField) : null;
  }
  if (Object.hasOwn(exportsField, subpath)) return pickTarget(exportsField[subpath]);
  for (const key of Object.keys(exportsField)) {
    const star = key.indexOf("*");
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      const middle = subpath.slice(prefix.length, subpath.length - suffix.length);
      const picked = pickTarget(exportsField[key]);
      if (picked) return picked.split("*").join(middle);
    }
  }
  return null;
}

function findPackageDir(name) {
  let dir = process.cwd();
  for (;;) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

// Prefers the package's ESM entry (the "import" condition) like Node's own import() would from a file in cwd.
function resolveBare(spec) {
  const parsed = splitPackageSpecifier(spec);
  const dir = findPackageDir(parsed.name);
  if (dir !== null) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    if (manifest.exports !== undefined) {
      const target = resolveExports(manifest.exports, parsed.subpath);
      if (target) return path.resolve(dir, target);
    }
  }
  return requireFromCwd().resolve(spec);
}

function importFromCwd(specifier, options) {
  const spec = String(specifier);
  if (spec.startsWith("node:") || builtinModules.includes(spec)) return import(spec);
  if (/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(spec)) return import(spec, options);
  if (spec.startsWith(".") || path.isAbsolute(spec)) {
    return import(pathToFileURL(path.resolve(process.cwd(), spec)).href, options);
  }
  let resolved;
  try {
    resolved = resolveBare(spec);
  } catch {
    const missing = new Error("Cannot find package '" + spec + "' from " + process.cwd());
    missing.code = "ERR_MODULE_NOT_FOUND";
    return Promise.reject(missing);
  }
  if (builtinModules.includes(resolved)) return import(resolved);
  return import(pathToFileURL(resolved).href, options);
}

module.exports = { cellRequire, importFromCwd };
