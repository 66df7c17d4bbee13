import { useThumbnail } from '../thumbnail-frames.js';
import './thumbnail.css';

/**
 * A recording's first frame, small, so that site walks can be told apart: the image
 * once the service has it, a neutral placeholder while it is being read, and a neutral icon (a
 * film frame) when Chromium cannot decode it here, never a broken image. `name` is the file's name.
 */
export function Thumbnail({ path, name }: { path: string; name: string }) {
  const thumb = useThumbnail(path);
  if (thumb.kind === 'image') {
    return (
      <img
        className="thumb"
        data-testid="thumbnail"
        data-state="image"
        src={thumb.dataUrl}
        alt={`First frame of ${name}`}
        width={64}
        height={32}
      />
    );
  }
  if (thumb.kind === 'loading')
    return <span className="thumb thumb-loading" data-testid="thumbnail" data-state="loading" aria-hidden="true" />;
  return (
    <span
      className="thumb thumb-none"
      data-testid="thumbnail"
      data-state="none"
      role="img"
      aria-label={`No preview of ${name}`}
      title={thumb.reason}
    >
      <svg viewBox="0 0 24 16" width="24" height="16" aria-hidden="true" focusable="false">
        <rect x="1" y="1" width="22" height="14" rx="2" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <path d="M10 5v6l5-3z" fill="currentColor" />
      </svg>
    </span>
  );
}
