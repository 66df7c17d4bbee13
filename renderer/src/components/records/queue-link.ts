// A link from the office's day view to a capture's row in the upload queue. The
// Progress workspace and the queue are on different tabs: the link is a window event the App
// answers by showing the Upload tab, and the capture it names waits here until the queue list
// has scrolled to it.

const EVENT = 'capture:show-in-queue';
let pending: number | null = null;

/** Asks the App to show the queue at capture row `captureRow`. */
export function showInQueue(captureRow: number): void {
  pending = captureRow;
  window.dispatchEvent(new CustomEvent(EVENT, { detail: captureRow }));
}

/** Calls `fn` whenever a link asks for the queue; answers the function that stops listening. */
export function onShowInQueue(fn: () => void): () => void {
  window.addEventListener(EVENT, fn);
  return () => window.removeEventListener(EVENT, fn);
}

/** The capture row a link asked for, once: the queue list takes it when it scrolls there. */
export function takeLinkedCapture(): number | null {
  const row = pending;
  pending = null;
  return row;
}
