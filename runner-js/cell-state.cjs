"use strict";
// The cell that is running right now (or null between cells), shared by the runner's modules.

const state = { current: null, intrinsics: { Array: Array, Error: Error } };

function currentId() {
  return state.current === null ? "" : state.current.id;
}

module.exports = { state, currentId };
