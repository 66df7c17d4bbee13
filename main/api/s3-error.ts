import { decodeXML } from 'entities';

/** What the client reads of S3's error document: `<Error><Code>…</Code><Message>…</Message>…</Error>`. */
export interface S3ErrorBody {
  /** S3's error code, e.g. `AccessDenied`, `SlowDown`, `InvalidPart` (capture-upload-interface.md §7). */
  code: string;
  /** S3's human-readable message, when the document has one. */
  message?: string;
}

// Why not an XML parser: S3's error document is small and flat, and the client reads two leaf
// elements of it. What a regex alone gets wrong is their text, which may carry character and
// entity references (`&quot;`, `&#34;` as Go's encoder writes quotes, `&#x3C;`) or a CDATA
// section; `entities`' decodeXML decodes those as XML defines them, and fast-xml-parser (the
// local service's XML library) stays out of the app's dependencies.
const ROOT = /<Error(?:\s[^>]*)?>([\s\S]*)<\/Error\s*>/;

function leaf(doc: string, name: string): string | undefined {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>(?:<!\\[CDATA\\[([\\s\\S]*?)\\]\\]>|([^<]*))</${name}\\s*>`).exec(doc);
  if (!m) return undefined;
  return m[1] ?? decodeXML(m[2] ?? '');
}

/**
 * Reads S3's error document from a response body (any text). Returns undefined when the body is
 * not one (JSON, HTML, empty, another XML document). Never throws. Only `Code` and `Message` are
 * read: other elements (S3 echoes the string to sign or the signature provided) are left alone,
 * so nothing secret can travel from here into an error message.
 */
export function parseS3Error(text: string): S3ErrorBody | undefined {
  const body = ROOT.exec(text)?.[1];
  if (body === undefined) return undefined;
  const code = leaf(body, 'Code')?.trim();
  if (!code) return undefined;
  const message = leaf(body, 'Message');
  return message === undefined ? { code } : { code, message };
}

/**
 * S3's error as one line: `Code: Message`, or the code alone when the message is absent or blank
 * (Ceph RGW writes `<Message></Message>` for AccessDenied, SignatureDoesNotMatch and others).
 */
export function s3ErrorText(body: S3ErrorBody): string {
  const message = body.message?.trim();
  return message ? `${body.code}: ${message}` : body.code;
}
