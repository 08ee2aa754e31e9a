/**
 * A newcomer opens /docs in a real browser (Debian's chromium, driven by playwright-core) and
 * sees every operation of the service, rendered from its own /openapi.json with assets served by
 * the service itself: the page makes no request to any other origin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { inChromium, launchChromium } from '../support/chromium';
import type { ServiceProcess } from '../support/service-process';
import { startServiceProcess } from '../support/service-process';

const maybe = inChromium('docs page');

type Doc = { paths: Record<string, Record<string, { operationId: string; summary: string }>> };

describe('/docs in a headless browser', () => {
  jest.setTimeout(120_000);
  let service: ServiceProcess | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    // the service is stopped even where the browser is already gone and its close throws
    await Promise.allSettled([browser?.close(), service?.stop()]);
  });

  maybe('renders every operation of /openapi.json, with no request leaving the service', async () => {
    // Given the service running as a process (one for both tests, whichever runs first: the order is shuffled)
    service ??= await startServiceProcess({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'prs-docs-')) });
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Doc;
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(0);

    // When a browser opens /docs
    browser = await launchChromium();
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const response = await page.goto(`${service.url}/docs`);
    expect(response?.status()).toBe(200);
    // under a policy that admits the service alone and forbids framing (tokens are typed here)
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    await page.waitForSelector('.opblock', { timeout: 60_000 });

    // Then every operation is on the page, by its operationId and its summary
    const ids = await page.locator('.opblock-summary-operation-id').allInnerTexts();
    expect(ids.map((t) => t.trim()).sort()).toEqual(operations.map((op) => op.operationId).sort());
    const summaries = await page.locator('.opblock-summary-description').allInnerTexts();
    for (const op of operations) expect(summaries.map((t) => t.trim())).toContain(op.summary);
    // And the Authorize dialog offers the users' credentials, not the operator token
    await page.locator('button.authorize').first().click();
    await page.waitForSelector('.auth-container', { timeout: 30_000 });
    const dialog = await page.locator('.modal-ux').innerText();
    expect(dialog).toContain('bearerAuth');
    expect(dialog).toContain('apiKeyAuth');
    expect(dialog).not.toContain('directoryToken');
    expect(dialog).not.toContain('X-Directory-Token');
    // And the page came from the service alone (no CDN)
    const foreign = requested.filter((u) => !u.startsWith(service!.url) && !u.startsWith('data:'));
    expect(foreign).toEqual([]);
    // And nothing the page needed was refused by its policy
    expect(refused).toEqual([]);
  });

  it('serves the files the page loads and none of the rest of its package', async () => {
    service ??= await startServiceProcess({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'prs-docs-')) });
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-initializer.js'])
      expect([file, (await fetch(`${service.url}/docs/${file}`)).status]).toEqual([file, 200]);
    for (const file of ['package.json', 'README.md', 'swagger-ui-bundle.js.map', 'oauth2-redirect.html'])
      expect([file, (await fetch(`${service.url}/docs/${file}`)).status]).toEqual([file, 404]);
  });
});
