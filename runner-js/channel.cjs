"use strict";
// The runner's end of the wire: frames go out on fd 3, and sync markers on fd 1 and fd 2 let the host put
// frames, the runner's own writes and raw writes of child processes back into the order they happened.

const fs = require("node:fs");
const net = require("node:net");
const { fitFrame, LINE_GUARD, replacement } = require("./big-values.cjs");

const CHANNEL_FD = 3;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let markerPrefix = "";
let syncSerial = 0;
/** Which channel the runner wrote to last: 0 frames, 1 stdout, 2 stderr (-1 nothing yet). */
let lastSource = -1;
let onHostGone = () => {};

function configure(nonce, hostGone) {
  markerPrefix = "\x1b]evalkit-sync;" + nonce + ";";
  onHostGone = hostGone;
}

// Writes every byte, waiting out EAGAIN (fd 3 is non-blocking once it is read through a socket handle).
function writeAll(fd, buffer) {
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
    } catch (err) {
      if (err.code === "EAGAIN") Atomics.wait(sleeper, 0, 0, 1);
      else if (err.code === "EPIPE" || err.code === "ECONNRESET" || err.code === "EBADF") {
        onHostGone();
        return;
      } else throw err;
    }
  }
}

// A sync point starts a new epoch on all three channels; only `owner` writes in it (children aside).
function syncPoint(owner) {
  syncSerial += 1;
  lastSource = owner;
  const mark = Buffer.from(markerPrefix + syncSerial + "\x07", "latin1");
  writeAll(1, mark);
  writeAll(2, mark);
  return syncSerial;
}

function bigintSafe(_key, value) {
  return typeof value === "bigint" ? String(value) : value;
}

function encode(frame) {
  try {
    return JSON.stringify(frame);
  } catch {
    return JSON.stringify(frame, bigintSafe);
  }
}

/**
 * Sends one frame; every frame opens an epoch so output written before it is delivered before it. A value too big
 * for one frame is cut first (its full text goes out ahead of it as stream output, in its own epoch).
 */
function send(frame) {
  fitFrame(frame, writeStream);
  delete frame.sync;
  let json = encode(frame);
  // Measured before the sync point opens: a call too big to send throws in its caller with nothing half-sent.
  const size = Buffer.byteLength(json, "utf8");
  if (size > LINE_GUARD) json = encode(replacement(frame, size));
  // The sync number goes in last, as the object's final key.
  json = json.slice(0, -1) + ',"sync":' + syncPoint(0) + "}\n";
  writeAll(CHANNEL_FD, Buffer.from(json, "utf8"));
}

/** Writes stream bytes to fd 1 or 2 (the same pipes child processes inherit), opening an epoch on a switch. */
function writeStream(fd, data) {
  if (data.length === 0) return;
  if (lastSource !== fd) {
    const n = syncPoint(fd);
    writeAll(CHANNEL_FD, Buffer.from('{"type":"sync","sync":' + n + "}\n", "latin1"));
  }
  writeAll(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
}

/** Reads host frames (one JSON object per line) from fd 3. */
function listen(onFrame) {
  const socket = new net.Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      if (line.trim() === "") continue;
      let frame;
      try {
        frame = JSON.parse(line);
      } catch {
        continue;
      }
      onFrame(frame);
    }
  });
  socket.on("end", () => {
    onHostGone();
  });
  socket.on("error", () => {
    onHostGone();
  });
  return socket;
}

module.exports = { configure, send, writeStream, listen };
