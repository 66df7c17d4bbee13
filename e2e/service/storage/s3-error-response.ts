/**
 * An S3 REST error, rendered as the `<Error>` XML document real S3 returns.
 *
 * `code` is S3's error code (`AccessDenied`, `NoSuchUpload`, `EntityTooSmall`, ...),
 * `status` the HTTP status S3 uses for that code.
 */
export class S3Error extends Error {
  override readonly name = 'S3Error';
  /** A `Retry-After` header value to answer with (a fault rule's), beside the setting's. */
  retryAfter?: string;
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The errors of S3's error-code table that the local storage raises, with S3's own wording. */
export const s3Errors = {
  accessDeniedExpired: () => new S3Error('AccessDenied', 'Request has expired', 403),
  accessDenied: (why: string) => new S3Error('AccessDenied', why, 403),
  signatureMismatch: () =>
    new S3Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      403,
    ),
  invalidAccessKeyId: () =>
    new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', 403),
  skewed: () =>
    new S3Error(
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
      403,
    ),
  noSuchBucket: () => new S3Error('NoSuchBucket', 'The specified bucket does not exist', 404),
  noSuchKey: () => new S3Error('NoSuchKey', 'The specified key does not exist.', 404),
  noSuchUpload: () =>
    new S3Error(
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
      404,
    ),
  invalidPart: () =>
    new S3Error(
      'InvalidPart',
      "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
      400,
    ),
  invalidPartOrder: () =>
    new S3Error(
      'InvalidPartOrder',
      'The list of parts was not in ascending order. Parts must be ordered by part number.',
      400,
    ),
  entityTooSmall: () =>
    new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.', 400),
  malformedXml: () =>
    new S3Error(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
      400,
    ),
  invalidArgument: (why: string) => new S3Error('InvalidArgument', why, 400),
  badDigest: () => new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', 400),
  sha256Mismatch: () =>
    new S3Error(
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
      400,
    ),
  incompleteBody: () =>
    new S3Error(
      'IncompleteBody',
      'You did not provide the number of bytes specified by the Content-Length HTTP header',
      400,
    ),
  invalidRange: () => new S3Error('InvalidRange', 'The requested range is not satisfiable', 416),
  requestTimeout: () =>
    new S3Error(
      'RequestTimeout',
      'Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.',
      400,
    ),
  internalError: () => new S3Error('InternalError', 'We encountered an internal error. Please try again.', 500),
  slowDown: () => new S3Error('SlowDown', 'Please reduce your request rate.', 503),
  notImplemented: (what: string) =>
    new S3Error('NotImplemented', `${what} is not implemented by the local storage.`, 501),
  methodNotAllowed: () =>
    new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.', 405),
};
