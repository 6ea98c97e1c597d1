"use strict";
// Shared by the runner's modules: the cell running now (null between cells) and Node's checks taken at start.

const state = { current: null, intrinsics: { Array: Array, Error: Error } };

// Node's type checks as they were at the start, before any cell could replace them on the shared `util` module:
// completion (loaded on the first Tab) must never run a cell's function.
const { isProxy, isStringObject } = require("node:util").types;
const nodeTypes = { isProxy: isProxy, isStringObject: isStringObject };

function currentId() {
  return state.current === null ? "" : state.current.id;
}

module.exports = { state, currentId, nodeTypes };
