import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultAction } from './faults.js';

// The local service is built on node:http rather than a web framework on purpose: its fault
// injection needs the raw socket (reset part-way through a body, hold a request, throttle reads),
// which frameworks hide behind their own body parsing.

/** An error answered as JSON `body` with `status`; the shape of `body` is the interface's own. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? status));
  }
}

/**
 * What a route handler gets: the request, the response, the parsed URL and the path parameters,
 * and the fault a rule fired for this request that the handler itself acts out (faults.ts:
 * `badParts`, `hostileIds`), if any.
 */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  fault?: FaultAction;
}

type Handler = (ctx: RouteContext) => Promise<void> | void;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  operation: string;
  handler: Handler;
}

/** A list of routes matched in order; `/:name` segments become parameters (URI-decoded). */
export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route. `operation` names it for fault rules (see faults.ts). */
  add(method: string, path: string, operation: string, handler: Handler): this {
    const names: string[] = [];
    const source = path.replace(/:([A-Za-z]+)/g, (_, n: string) => {
      names.push(n);
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, operation, handler });
    return this;
  }

  /** The route for a method and path, or `undefined`; `methodMismatch` when only the method differs. */
  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | { methodMismatch: true } | undefined {
    let methodMismatch = false;
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
      return { route, params };
    }
    return methodMismatch ? { methodMismatch: true } : undefined;
  }
}

/** Sends a JSON body with the given status. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Reads a JSON request body of at most `limit` bytes (default 1 MiB).
 * Throws {@link HttpError} 400 with `errorBody(message)` when it is not JSON, 413 when too large.
 */
export async function readJsonBody(
  req: IncomingMessage,
  errorBody: (message: string) => Record<string, unknown>,
  limit = 1024 * 1024,
): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, errorBody('Request body is too large'));
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, errorBody('Request body is not valid JSON'));
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
