/**
 * Names every process agrees on. `shared/` imports nothing from Node, the DOM or the other
 * layers (CONVENTIONS.md, "Where code lives"), so both the main process and the renderer can use it.
 */
export const APP_NAME = 'Capture Uploader';

/** Reverse-DNS application id, used by electron-builder and for the single-instance lock. */
export const APP_ID = 'com.captureuploader.desktop';
