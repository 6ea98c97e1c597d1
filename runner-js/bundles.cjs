"use strict";
// Values -> MIME bundles: util.inspect text always, application/json for plain data only.

const util = require("node:util");

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
      ok = Object.keys(v).length === v.length && v.every((item) => check(item, depth + 1));
    } else {
      const proto = Object.getPrototypeOf(v);
      const isPlain = proto === null || Object.getPrototypeOf(proto) === null;
      ok =
        isPlain &&
        Object.getOwnPropertySymbols(v).length === 0 &&
        Object.keys(v).every((k) => {
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
  const keys = Object.keys(value).filter((k) => k !== "raw");
  return keys.length > 0 && keys.every((k) => k.includes("/"));
}

// Bytes in a bundle (an image Buffer) travel as base64, the way every MIME bundle carries binary data.
function normalizeBundle(bundle) {
  const out = {};
  for (const key of Object.keys(bundle)) {
    if (key === "raw") continue;
    const v = bundle[key];
    out[key] =
      v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") : v;
  }
  return out;
}

module.exports = { toBundle, looksLikeBundle, normalizeBundle };
