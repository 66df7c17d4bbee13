/**
 * The capture rules of capture-upload-interface.md §7 (add-capture errors) and §8 (limits),
 * checked before anything is sent so a person sees the service's own message at once.
 */

/** The exact 422 messages of §7 for add-capture. */
export const CAPTURE_RULE_MESSAGES = {
  tooManyFiles: 'No more than 3 files are allowed',
  fileName: 'Each file must include a fileName',
  fileType: 'Only INSV, MP4, and CSV files are allowed',
  noVideo: 'At least one INSV or MP4 file is required, CSV is optional',
} as const;

/** Files per capture, §8. */
const MAX_FILES_PER_CAPTURE = 3;

/** The file types §8 allows, by lower-cased extension. */
export type MediaKind = 'insv' | 'mp4' | 'csv';

const CONTENT_TYPES: Record<MediaKind, string> = {
  insv: 'video/insv',
  mp4: 'video/mp4',
  csv: 'text/csv',
};

/** The extension of a file name, lower-cased, without the dot; undefined when it has none. */
function extensionOf(fileName: string): string | undefined {
  return /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
}

/** The media kind of a file name, decided by its extension case-insensitively (§2 File.fileName), or undefined. */
export function mediaKindOf(fileName: string): MediaKind | undefined {
  const ext = extensionOf(fileName);
  return ext === 'insv' || ext === 'mp4' || ext === 'csv' ? ext : undefined;
}

/** The MIME type sent as File.contentType (§2) for a media kind. */
export function contentTypeOf(kind: MediaKind): string {
  return CONTENT_TYPES[kind];
}

/** Whether a kind is a video (at least one is required per capture, §7). */
export const isVideo = (kind: MediaKind | undefined) => kind === 'insv' || kind === 'mp4';

/**
 * Applies the §7/§8 file rules in the order §7 lists them and returns the service's message for
 * the first one broken, or undefined when the files may be registered together.
 * `files` are the file names of one capture.
 */
export function captureFilesViolation(fileNames: readonly string[]): string | undefined {
  if (fileNames.length === 0) return CAPTURE_RULE_MESSAGES.noVideo;
  if (fileNames.length > MAX_FILES_PER_CAPTURE) return CAPTURE_RULE_MESSAGES.tooManyFiles;
  if (fileNames.some((n) => n.trim() === '' || !extensionOf(n))) return CAPTURE_RULE_MESSAGES.fileName;
  const kinds = fileNames.map(mediaKindOf);
  if (kinds.some((k) => k === undefined)) return CAPTURE_RULE_MESSAGES.fileType;
  if (!kinds.some(isVideo)) return CAPTURE_RULE_MESSAGES.noVideo;
  return undefined;
}
