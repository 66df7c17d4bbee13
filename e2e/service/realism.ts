import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultRegistry, FaultTarget } from './faults.js';
import { HttpError } from './http-router.js';

// Behaviours of real servers and the networks in front of them that the interface does not
// describe, but that a client meets: kept apart from the routes so each stays one setting or fault.

// §4.2 and §4.3 name content-type among their required headers although they carry no body.
const BODILESS_JSON_REQUIRED = new Set(['project-folder-with-default-sheet', 'latest-default-design-update-time']);

/**
 * Throws the 400 a Fastify server answers (`FST_ERR_CTP_EMPTY_JSON_BODY`) when `strictContentType`
 * is on and a gateway or sign-in request declares `content-type: application/json` without a
 * body, except on the calls whose section requires the header (§4.2, §4.3)..
 */
export function refuseBodilessJson(
  faults: FaultRegistry,
  target: FaultTarget,
  operation: string,
  req: IncomingMessage,
): void {
  if (!faults.settings.strictContentType || (target !== 'gateway' && target !== 'auth')) return;
  if (target === 'gateway' && BODILESS_JSON_REQUIRED.has(operation)) return;
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody) return;
  throw new HttpError(400, {
    statusCode: 400,
    code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
    error: 'Bad Request',
    message: "Body cannot be empty when content-type is set to 'application/json'",
  });
}

/**
 * Throws the answer of a gateway whose §4.9 path is not this stand-in's guess (`statusRead`
 * setting 404 or 405), as its router would give before any handler runs..
 */
export function refuseStatusRead(faults: FaultRegistry, target: FaultTarget, operation: string): void {
  const setting = faults.settings.statusRead;
  if (setting === 'ok' || target !== 'gateway' || operation !== 'status') return;
  throw new HttpError(setting, {
    message: setting === 404 ? 'Cannot GET this path' : 'Method Not Allowed',
    statusCode: setting,
  });
}

/**
 * Answers with an HTML page instead of JSON (the `html` fault): what a captive portal (200 with
 * its login page), a corporate proxy or a CDN (403, 502 ...) puts between a client and the service.
 */
export function sendHtmlPage(res: ServerResponse, status: number): void {
  const page =
    '<!DOCTYPE html><html><head><title>Site Wi-Fi: sign in</title></head>' +
    '<body><h1>Welcome to the site network</h1><form method="post" action="/login"><input name="voucher"><button>Connect</button></form></body></html>';
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
  res.end(page);
}
