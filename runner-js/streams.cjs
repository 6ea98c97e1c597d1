"use strict";
// process.stdout, process.stderr and console write straight to fd 1 and fd 2, through the ordering channel.

const { Writable } = require("node:stream");
const { Console } = require("node:console");
const channel = require("./channel.cjs");

function toBytes(chunk, encoding) {
  if (typeof chunk === "string") {
    return typeof encoding === "string" && encoding !== "utf8" && encoding !== "utf-8"
      ? Buffer.from(chunk, encoding)
      : chunk;
  }
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return String(chunk);
}

// A Writable whose write() is synchronous, like Node's own stdout on a pipe: a cell that prints and then
// spawns a child keeps that order, and a process killed in a busy loop has already handed over its lines.
function makeStream(fd) {
  const stream = new Writable({
    write(chunk, encoding, callback) {
      channel.writeStream(fd, toBytes(chunk, encoding));
      callback();
    },
  });
  stream.write = (chunk, encoding, callback) => {
    const done = typeof encoding === "function" ? encoding : callback;
    channel.writeStream(fd, toBytes(chunk, typeof encoding === "string" ? encoding : undefined));
    if (typeof done === "function") process.nextTick(done);
    return true;
  };
  Object.defineProperty(stream, "fd", { value: fd, enumerable: true });
  Object.defineProperty(stream, "isTTY", { value: false, enumerable: true });
  return stream;
}

const stdout = makeStream(1);
const stderr = makeStream(2);

// Replaced before anything touches the originals, so Node never opens its own handles on fd 1 and fd 2.
Object.defineProperty(process, "stdout", { configurable: true, enumerable: false, get: () => stdout });
Object.defineProperty(process, "stderr", { configurable: true, enumerable: false, get: () => stderr });

const cellConsole = new Console({ stdout: stdout, stderr: stderr, colorMode: false });
Object.defineProperty(globalThis, "console", { value: cellConsole, writable: true, configurable: true });

function writeText(name, text) {
  channel.writeStream(name === "stderr" ? 2 : 1, String(text));
}

module.exports = { cellConsole, writeText };
