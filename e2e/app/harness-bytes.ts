import type { Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';

/**
 * The test harness's stand-in for what Electron's IPC does with a typed array in an answer: it
 * copies its bytes. Playwright's exposeBinding instead writes a typed array into its JSON protocol
 * as base64 built one byte at a time (1.1–1.8 s for the 3.2 MB of a floor's 200,000 points,
 * against a few milliseconds of copying in the app). So each typed array of an answer is taken
 * out and fetched back into the page as bytes by the harness's `window.api` (harness.ts), from an
 * address of the app's own origin that Playwright answers (page.route; the page's
 * Content-Security-Policy lets it fetch from its own origin only), and put back where it was
 * before the page sees the answer (docs/decisions/0032-assets-answer-packed.md).
 */
export class HarnessBytes {
  private readonly waiting = new Map<string, Buffer>();

  private constructor(
    /** The address the page fetches the bytes under, `<app origin>/__harness-bytes/`. */
    private readonly base: string,
  ) {}

  /** Answers `<appOrigin>/__harness-bytes/ID` in `page` with the bytes waiting under ID (each once). */
  static async start(page: Page, appOrigin: string): Promise<HarnessBytes> {
    const self = new HarnessBytes(`${appOrigin}/__harness-bytes/`);
    await page.route(`${self.base}*`, async (route) => {
      const id = route.request().url().slice(self.base.length);
      const body = self.waiting.get(id);
      self.waiting.delete(id);
      await route.fulfill(
        body ? { status: 200, contentType: 'application/octet-stream', body } : { status: 404, body: '' },
      );
    });
    return self;
  }

  /**
   * `value` with each typed array in it replaced by null, and where each was: its path of keys,
   * its constructor's name and the address its bytes are served at (once). Objects and arrays are
   * walked; nothing else is changed, and `value` itself is not modified.
   */
  carry(value: unknown): { value: unknown; bytes: { path: (string | number)[]; type: string; url: string }[] } {
    const bytes: { path: (string | number)[]; type: string; url: string }[] = [];
    const walk = (v: unknown, path: (string | number)[]): unknown => {
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const id = randomBytes(12).toString('hex');
        this.waiting.set(id, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
        bytes.push({ path, type: v.constructor.name, url: `${this.base}${id}` });
        return null;
      }
      if (Array.isArray(v)) {
        let out: unknown[] | undefined;
        v.forEach((x, i) => {
          const w = typeof x === 'object' && x !== null ? walk(x, [...path, i]) : x;
          if (w !== x) (out ??= [...v])[i] = w;
        });
        return out ?? v;
      }
      if (typeof v === 'object' && v !== null) {
        let out: Record<string, unknown> | undefined;
        for (const [k, x] of Object.entries(v)) {
          const w = typeof x === 'object' && x !== null ? walk(x, [...path, k]) : x;
          if (w !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = w;
        }
        return out ?? v;
      }
      return v;
    };
    return { value: walk(value, []), bytes };
  }

  /** Lets go of the bytes not fetched. */
  stop(): void {
    this.waiting.clear();
  }
}
