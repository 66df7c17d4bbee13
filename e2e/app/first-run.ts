import type { Page } from '@playwright/test';
import type { TestService } from '../service/testing.js';

/**
 * Fills the first-run screen's account form with the test service's addresses, project, API key
 * and account email (capture-upload-interface.md, sign-in), and `password` (the account's own,
 * unless a test wants a wrong one). Nothing is saved: the test presses the button it means.
 */
export async function fillAccountForm(page: Page, service: TestService['info'], password: string): Promise<void> {
  await page.getByLabel('Capture gateway address').fill(service.baseUrl);
  await page.getByLabel('Sign-in address').fill(service.authUrl);
  await page.getByLabel('Progress records address').fill(service.progressBaseUrl);
  await page.getByLabel('Project id').fill(service.projectId);
  await page.getByLabel('API key').fill(service.apiKey);
  await page.getByLabel('Email').fill(service.account.email);
  await page.getByLabel('Password').fill(password);
}
