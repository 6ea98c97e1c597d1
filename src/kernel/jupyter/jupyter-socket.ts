// The kernel's WebSocket (/api/kernels/ID/channels): `ws` loaded on first use, JSON messages in and out.
import type WebSocket from "ws";
import { EvalkitError } from "../../errors.js";
import { type JupyterMessage, parseMessage } from "./jupyter-messages.js";

/** How a socket ended when nobody asked it to. */
export interface SocketClose {
  code: number;
  reason: string;
}

/** Handlers of one socket. */
export interface SocketHandlers {
  onMessage: (message: JupyterMessage) => void;
  onClose: (close: SocketClose) => void;
}

// `ws` is only loaded by a process that talks to a Jupyter server (docs/jupyter.md, "The client").
let wsModule: Promise<typeof import("ws")> | undefined;

/** An open kernel WebSocket. */
export class JupyterSocket {
  private isClosing = false;

  private constructor(private readonly socket: WebSocket) {}

  /** Opens the socket; fails with the server's status (403: token) or the connect error, never hangs. */
  static async open(
    url: string,
    headers: Record<string, string>,
    handlers: SocketHandlers,
    timeoutMs: number,
  ): Promise<JupyterSocket> {
    wsModule ??= import("ws");
    const { default: WebSocketClass } = await wsModule;
    const socket = new WebSocketClass(url, {
      headers,
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
    });
    const opened = new JupyterSocket(socket);
    await new Promise<void>((resolve, reject) => {
      const fail = (why: string, isRefused = false) => {
        socket.removeAllListeners();
        socket.on("error", () => {});
        socket.terminate();
        const hint = isRefused
          ? "; set the server's token in EVALKIT_JUPYTER_TOKEN or --jupyter-token-file"
          : "";
        reject(
          new EvalkitError(
            isRefused ? "JUPYTER_REFUSED" : "JUPYTER_UNREACHABLE",
            `cannot open the kernel WebSocket ${redactQuery(url)} (${why})${hint}`,
            { url: redactQuery(url) },
          ),
        );
      };
      socket.once("open", () => {
        socket.removeAllListeners("unexpected-response");
        resolve();
      });
      socket.once("unexpected-response", (_request, response) => {
        const isRefused = response.statusCode === 401 || response.statusCode === 403;
        fail(`HTTP ${response.statusCode}${isRefused ? ": the server refused the token" : ""}`, isRefused);
      });
      socket.once("error", (err) => fail(err.message));
    });
    socket.on("error", () => {
      // A close event follows every error; it is where the kernel learns the socket is gone.
    });
    socket.on("message", (data, isBinary) => {
      // The JSON protocol sends text frames; binary frames (buffers of widgets) carry nothing evalkit shows.
      if (isBinary) return;
      const message = parseMessage(data.toString());
      if (message) handlers.onMessage(message);
    });
    socket.on("close", (code, reason) => {
      if (!opened.isClosing) handlers.onClose({ code, reason: reason.toString() });
    });
    return opened;
  }

  get isOpen(): boolean {
    return this.socket.readyState === 1;
  }

  send(message: JupyterMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Closes without telling `onClose` (the caller asked). */
  close(): void {
    this.isClosing = true;
    if (this.socket.readyState <= 1) this.socket.close(1000);
    // A server that never answers the close handshake must not keep the host alive.
    setTimeout(() => this.socket.terminate(), 1000).unref();
  }
}

/** URLs in messages never carry a query (a token may be there). */
function redactQuery(url: string): string {
  const at = url.indexOf("?");
  return at < 0 ? url : url.slice(0, at);
}
