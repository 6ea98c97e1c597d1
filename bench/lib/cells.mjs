// The cells every implementation runs, written once so the three measure the same work.

/** A valid ~1 MiB PNG (random RGBA pixels, stdlib only) bound to `png`. */
export const MAKE_PNG = `import os, struct, zlib
def _bench_png(w, h):
    raw = b"".join(b"\\x00" + os.urandom(w * 4) for _ in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    head = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
png = _bench_png(512, 512)
len(png)`;

/** Prints `mb` MiB as 1 KiB lines through print(). */
export function printMegabytes(mb) {
  return `_line = "x" * 1023\nfor _ in range(${mb * 1024}):\n    print(_line)`;
}

export const BUSY_LOOP = "while True: pass";
export const TRIVIAL = "1+1";
export const TINY_STATEMENT = "x = 1";
