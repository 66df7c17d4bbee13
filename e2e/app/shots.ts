import type { Page, TestInfo } from '@playwright/test';

/** The usual window and the smallest the shell allows (main/electron/main.ts minWidth × minHeight). */
export const SIZES = { large: { width: 1280, height: 800 }, small: { width: 820, height: 560 } } as const;

/**
 * Screenshots of what the window shows at each size under test, saved as
 * `<name>-large.png` and `<name>-small.png` in the test's output folder; `before` runs at each
 * size first (to scroll something into view). The window is left at the large size.
 */
export async function shots(page: Page, info: TestInfo, name: string, before?: () => Promise<void>): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await before?.();
    await page.screenshot({ path: info.outputPath(`${name}-${size}.png`) });
  }
  await page.setViewportSize(SIZES.large);
}
