import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';

/**
 * axe-core over the page as the browser tests check it (CONVENTIONS.md: "@axe-core/playwright
 * checks every screen").
 */

/** The violations axe finds on the whole page, as `rule id: help` → the elements (CSS selectors) at fault. */
export async function violations(page: Page): Promise<Record<string, string[]>> {
  const { violations: found } = await new AxeBuilder({ page }).analyze();
  return Object.fromEntries(found.map((v) => [`${v.id}: ${v.help}`, v.nodes.map((n) => n.target.join(' '))]));
}

/** No axe violations inside `selector` (CSS); the failure lists each rule with the elements it found. */
export async function expectAccessible(page: Page, selector: string): Promise<void> {
  const { violations: found } = await new AxeBuilder({ page }).include(selector).analyze();
  expect(found.map((v) => ({ rule: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }))).toEqual([]);
}
