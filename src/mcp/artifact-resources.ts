// Stored full outputs as MCP resources: `artifact://<id>` listed newest first, read by page (`?offset=N&limit=N`).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { EvalkitError, isEvalkitError } from "../errors.js";
import { formatArtifactUri } from "../output/artifacts/artifact-ids.js";
import { listArtifacts, MAX_READ_LIMIT, readArtifact } from "../output/artifacts/artifact-store.js";
import { invalidParams, ProtocolError, RESOURCE_NOT_FOUND } from "./protocol-error.js";

export { RESOURCE_NOT_FOUND } from "./protocol-error.js";

/** Bytes a read returns when the URI sets no `limit` (about 16k tokens: a page a model can take in). */
export const DEFAULT_RESOURCE_PAGE_BYTES = 64 * 1024;
/** Resources per `resources/list` page. */
export const RESOURCE_LIST_PAGE = 100;

/** What `artifact://<id>?offset=N&limit=N` asks for. */
export interface ArtifactRequest {
  id: string;
  offset: number;
  limit: number;
}

/** Parses an artifact resource URI; anything malformed is an InvalidParams error naming the part. */
export function parseArtifactResourceUri(uri: string): ArtifactRequest {
  const match = /^artifact:\/\/([^?#/]*)(?:\?([^#]*))?$/.exec(uri);
  if (!match) {
    throw invalidParams(`uri: expected artifact://<id>[?offset=N&limit=N], got ${uri}`);
  }
  const id = match[1] ?? "";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw invalidParams(`uri: ${JSON.stringify(id)} is not an artifact id`);
  }
  const query = new URLSearchParams(match[2] ?? "");
  for (const key of query.keys()) {
    if (key !== "offset" && key !== "limit") {
      throw invalidParams(`uri: unknown query parameter "${key}" (offset, limit)`);
    }
  }
  const offset = readInteger(query.get("offset"), "offset", Number.MIN_SAFE_INTEGER) ?? 0;
  const limit = readInteger(query.get("limit"), "limit", 1) ?? DEFAULT_RESOURCE_PAGE_BYTES;
  if (limit > MAX_READ_LIMIT) {
    throw invalidParams(`uri: limit must be at most ${MAX_READ_LIMIT}, got ${limit}`);
  }
  return { id, offset, limit };
}

function readInteger(raw: string | null, name: string, min: number): number | undefined {
  if (raw === null) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isSafeInteger(value) || value < min) {
    throw invalidParams(
      `uri: ${name} must be an integer${min === 1 ? " >= 1" : ""}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** `artifact://<id>?offset=N&limit=N` (the bare URI for the whole default first page). */
export function formatPageUri(id: string, offset: number, limit: number): string {
  return `${formatArtifactUri(id)}?offset=${offset}&limit=${limit}`;
}

/**
 * The artifacts one server's calls wrote. The store is shared by every evalkit on the machine (EVALKIT_HOME), so
 * listings and not-found hints name only these, never another project's outputs.
 */
export class ServerArtifacts {
  private readonly ids = new Set<string>();

  /** Remembers every `artifact://<id>` a call result names (its text and its details). */
  noteResult(result: { content?: unknown; structuredContent?: unknown }): boolean {
    const before = this.ids.size;
    const text = JSON.stringify([result.content ?? null, result.structuredContent ?? null]);
    for (const match of text.matchAll(/artifact:\/\/([A-Za-z0-9_-]{1,64})/g)) this.ids.add(match[1]!);
    return this.ids.size > before;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** This server's ids, newest first as the store lists them. */
  filter<T extends { id: string }>(items: readonly T[]): T[] {
    return items.filter((item) => this.ids.has(item.id));
  }

  get size(): number {
    return this.ids.size;
  }
}

/** Reads one page. The first item is the exact text of the page; when more follows, a second item, whose
 * URI is the next page's, says so in one line. `_meta` carries the numbers for programs. */
export async function readArtifactResource(
  uri: string,
  dir: string,
  owned?: ServerArtifacts,
  isOwnOnly = false,
): Promise<ReadResourceResult> {
  const request = parseArtifactResourceUri(uri);
  let page: Awaited<ReturnType<typeof readArtifact>>;
  try {
    // Tenants of one HTTP server share the store: there, another session's artifact does not exist.
    if (isOwnOnly && owned?.has(request.id) !== true) {
      throw new EvalkitError("ARTIFACT_NOT_FOUND", `no artifact ${request.id} in this session`);
    }
    page = await readArtifact(request.id, { dir, offset: request.offset, limit: request.limit });
  } catch (err) {
    if (isEvalkitError(err, "ARTIFACT_NOT_FOUND")) {
      throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}${describeOwned(dir, owned)}`, {
        uri,
      });
    }
    throw err;
  }
  const end = page.offset + page.bytes.length;
  const nextUri = page.nextOffset === null ? null : formatPageUri(page.id, page.nextOffset, request.limit);
  const meta = {
    "evalkit/page": {
      offset: page.offset,
      bytes: page.bytes.length,
      totalBytes: page.totalBytes,
      nextOffset: page.nextOffset,
      nextUri,
    },
  };
  const contents: ReadResourceResult["contents"] = [
    { uri, mimeType: "text/plain", text: page.text, _meta: meta },
  ];
  if (nextUri !== null) {
    contents.push({
      uri: nextUri,
      mimeType: "text/plain",
      text:
        `[evalkit: bytes ${page.offset}-${end} of ${page.totalBytes} shown; the next page is ${nextUri} ` +
        `(limit up to ${MAX_READ_LIMIT}; a negative offset counts from the end)]`,
    });
  }
  return { contents, _meta: meta };
}

/** One listed artifact. */
function describeArtifact(info: {
  id: string;
  uri: string;
  sizeBytes: number;
  modifiedMs: number;
}): Resource {
  return {
    uri: info.uri,
    name: info.id,
    title: `Full output ${info.id}`,
    description:
      `Full output of an eval cell (${info.sizeBytes} bytes, written ${new Date(info.modifiedMs).toISOString()}). ` +
      `Reads return ${DEFAULT_RESOURCE_PAGE_BYTES} bytes by default; page with ?offset=N&limit=N.`,
    mimeType: "text/plain",
    size: info.sizeBytes,
  };
}

/** The hint of a not-found error: a few of this server's artifacts, or that it has none. */
function describeOwned(dir: string, owned: ServerArtifacts | undefined): string {
  if (owned === undefined) return "";
  if (owned.size === 0) return "; this server has stored no full output yet";
  const recent = owned.filter(listArtifacts({ dir })).slice(0, 5);
  return recent.length === 0
    ? "; this server's artifacts have expired"
    : `; this server's recent artifacts: ${recent.map((info) => info.uri).join(", ")}`;
}

/**
 * Registers resources/list, resources/templates/list and resources/read for the artifact directory; the list
 * holds the artifacts `owned` names (this server's); any stored artifact can be read by its URI, unless
 * `isOwnOnly` (a session of the HTTP server), where only `owned` ones can.
 */
export function registerArtifactResources(
  server: Server,
  dir: string,
  owned: ServerArtifacts,
  isOwnOnly = false,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const start = parseCursor(request.params?.cursor);
    const all = owned.size === 0 ? [] : owned.filter(listArtifacts({ dir }));
    const page = all.slice(start, start + RESOURCE_LIST_PAGE);
    const next = start + RESOURCE_LIST_PAGE;
    return {
      resources: page.map(describeArtifact),
      ...(next < all.length ? { nextCursor: String(next) } : {}),
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: "artifact://{id}{?offset,limit}",
        name: "artifact",
        title: "Full output of an eval cell",
        description:
          "The complete output of a cell whose text was shortened (the tool's text names the artifact:// URI). " +
          `offset: byte to start at (negative counts from the end); limit: bytes (default ${DEFAULT_RESOURCE_PAGE_BYTES}).`,
        mimeType: "text/plain",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    readArtifactResource(request.params.uri, dir, owned, isOwnOnly),
  );
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const value = Number(cursor);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw invalidParams(`cursor: not a cursor this server gave out (${cursor})`);
  }
  return value;
}
