import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import type { S3Error } from './s3-error-response.js';
import { s3Errors } from './s3-error-response.js';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', suppressEmptyNode: false });
// Entities decoded as XML allows them, numeric character references included: Go's encoder (rclone,
// aws-sdk-go) writes the ETags' quotes as `&#34;`.
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => name === 'Part',
});

/** Renders an S3 response document: `<Root xmlns=…>…</Root>` with an XML declaration. */
export function s3Xml(root: string, body: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ [root]: { '@xmlns': NS, ...body } })}`;
}

/** Renders S3's `<Error>` document for an error. */
export function errorXml(err: S3Error, resource: string, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({
    Error: { Code: err.code, Message: err.message, Resource: resource, RequestId: requestId },
  })}`;
}

/**
 * Parses a CompleteMultipartUpload body into its parts in the order given.
 * Throws S3Error MalformedXML when it is not that document.
 */
export function parseCompleteMultipartUpload(xml: string): { partNumber: number; etag: string }[] {
  let doc: { CompleteMultipartUpload?: { Part?: { PartNumber?: string; ETag?: string }[] } };
  try {
    doc = parser.parse(xml) as typeof doc;
  } catch {
    throw s3Errors.malformedXml();
  }
  const parts = doc.CompleteMultipartUpload?.Part;
  if (!Array.isArray(parts) || parts.length === 0) throw s3Errors.malformedXml();
  return parts.map((p) => {
    const partNumber = Number(p.PartNumber);
    if (!Number.isInteger(partNumber) || typeof p.ETag !== 'string') throw s3Errors.malformedXml();
    return { partNumber, etag: p.ETag.trim() };
  });
}
