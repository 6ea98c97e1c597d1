// Jupyter messaging protocol v5 as JSON over the kernel WebSocket: building requests, mapping iopub to evalkit outputs.
import { randomUUID } from "node:crypto";
import type { KernelOutput, MimeBundle } from "../../contracts/outputs.js";

/** Channels of the kernel WebSocket (control is not used: interrupts go through REST). */
export type JupyterChannel = "shell" | "iopub" | "stdin" | "control";

/** One message as the server's JSON WebSocket protocol carries it. */
export interface JupyterMessage {
  channel?: JupyterChannel;
  header: { msg_id: string; msg_type: string; session?: string; [key: string]: unknown };
  parent_header: { msg_id?: string; [key: string]: unknown };
  metadata: Record<string, unknown>;
  content: Record<string, unknown>;
  buffers?: unknown[];
}

/** The protocol version evalkit speaks (ipykernel 6+, IRkernel, IJulia all answer 5.x). */
export const PROTOCOL_VERSION = "5.3";

/** A request to send on `channel`, with a fresh message id. */
export function buildMessage(
  channel: JupyterChannel,
  msgType: string,
  content: Record<string, unknown>,
  session: string,
  parent: JupyterMessage["header"] | undefined = undefined,
): JupyterMessage {
  return {
    channel,
    header: {
      msg_id: randomUUID(),
      msg_type: msgType,
      username: "evalkit",
      session,
      date: new Date().toISOString(),
      version: PROTOCOL_VERSION,
    },
    parent_header: parent ?? {},
    metadata: {},
    content,
    buffers: [],
  };
}

/** A parsed message, or undefined for text that is not one (a server bug must not crash the host). */
export function parseMessage(text: string): JupyterMessage | undefined {
  try {
    const message = JSON.parse(text) as Partial<JupyterMessage>;
    if (typeof message?.header?.msg_type !== "string") return undefined;
    return {
      ...message,
      header: message.header,
      parent_header: message.parent_header ?? {},
      metadata: message.metadata ?? {},
      content: message.content ?? {},
    } as JupyterMessage;
  } catch {
    return undefined;
  }
}

/** The evalkit output an iopub message stands for (the same shapes local kernels produce), if any. */
export function toKernelOutput(message: JupyterMessage): KernelOutput | undefined {
  const content = message.content;
  switch (message.header.msg_type) {
    case "stream": {
      const text = typeof content.text === "string" ? content.text : "";
      if (text === "") return undefined;
      return { type: "stream", name: content.name === "stderr" ? "stderr" : "stdout", text };
    }
    case "display_data":
    case "update_display_data":
    case "execute_result": {
      const output: KernelOutput = {
        type: message.header.msg_type === "execute_result" ? "result" : "display",
        data: toBundle(content.data),
      };
      const metadata = content.metadata;
      if (isRecord(metadata) && Object.keys(metadata).length > 0) output.metadata = metadata;
      const transient = content.transient;
      const displayId = isRecord(transient) ? transient.display_id : undefined;
      if (typeof displayId === "string") output.displayId = displayId;
      if (message.header.msg_type === "update_display_data") output.update = true;
      return output;
    }
    case "error":
      return { type: "error", ...toErrorInfo(content) };
    case "clear_output":
      return { type: "clear_output", wait: content.wait === true };
    default:
      return undefined;
  }
}

/** ename/evalue/traceback of an `error` message or an error `execute_reply`. */
export function toErrorInfo(content: Record<string, unknown>): {
  ename: string;
  evalue: string;
  traceback: string[];
} {
  return {
    ename: typeof content.ename === "string" ? content.ename : "Error",
    evalue: typeof content.evalue === "string" ? content.evalue : "",
    traceback: Array.isArray(content.traceback) ? content.traceback.map(String) : [],
  };
}

function toBundle(data: unknown): MimeBundle {
  if (!isRecord(data)) return {};
  const bundle: MimeBundle = {};
  // Some kernels send multi-line text as a list of lines (nbformat style); evalkit's bundles hold strings.
  for (const [mime, value] of Object.entries(data))
    bundle[mime] = Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join("") : value;
  return bundle;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the kernel said about itself (`kernel_info_reply`). */
export interface JupyterKernelInfo {
  implementation: string;
  languageName: string;
  languageVersion: string;
}

/** The kernel's self-description from its `kernel_info_reply`. */
export function toKernelInfo(content: Record<string, unknown>): JupyterKernelInfo {
  const language = (content.language_info ?? {}) as { name?: unknown; version?: unknown };
  return {
    implementation: typeof content.implementation === "string" ? content.implementation : "",
    languageName: typeof language.name === "string" ? language.name : "",
    languageVersion: typeof language.version === "string" ? language.version : "",
  };
}
