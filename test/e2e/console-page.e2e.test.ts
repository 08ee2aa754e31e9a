/**
 * An operator opens /console in a real browser (Debian's chromium, driven by playwright-core),
 * signs in with the operator token, sees every read model, sees a write move its position, and
 * rebuilds one read model from the page, following the job until it is done.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { READ_MODEL_NAMES } from '../../src/app/read-model-list';
import { inChromium, launchChromium } from '../support/chromium';
import { demo, demoDirectory } from '../support/demo-directory';
import { startTestServer, type TestServer } from '../support/test-server';

const maybe = inChromium('console page');
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');

describe('/console in a headless browser', () => {
  jest.setTimeout(120_000);
  let server: TestServer | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  maybe(
    'signs in with the operator token, lists every read model, shows a write and follows a rebuild to done',
    async () => {
      // Given the service with the demo directory
      server = await startTestServer();
      await server.directory(demoDirectory.events);
      const team = await server.token(demo.users.team);
      const names = [...READ_MODEL_NAMES].sort();

      // When an operator opens /console and signs in
      browser = await launchChromium();
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const response = await page.goto(`${server.url}/console`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.fill('#token', server.services.secrets.directoryToken);
      await page.click('#sign-in button[type=submit]');

      // Then every read model has its row
      await page.waitForSelector('#read-models tbody tr[data-read-model]', { timeout: 30_000 });
      expect(await page.locator('#sign-in').isVisible()).toBe(false);
      const rows = page.locator('#read-models tbody tr[data-read-model]');
      const shown = await Promise.all((await rows.all()).map((tr) => tr.getAttribute('data-read-model')));
      expect(shown.sort()).toEqual(names);
      const position = page.locator('tr[data-read-model="resources"] td[data-col="position"]');
      const before = await position.innerText();

      // When a write is made, then the page shows the resources read model's position moving
      const saved = await server.post(
        '/api/Resource/SaveProjectResource',
        { id: 0, name: 'seen', resourceUrl: 'https://example.org/a.pdf', privacyLevel: 2, communityProjectId: 1000 },
        { token: team },
      );
      expect(saved.status).toBe(200);
      for (const deadline = Date.now() + 30_000; (await position.innerText()) === before;) {
        if (Date.now() > deadline) throw new Error(`the position stayed ${before}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      // When the operator rebuilds the directory read model from its row, then the job is followed
      // to done (its checkpoint is named otherwise: the row is named as the rebuild route takes it)
      await page.click('button[data-rebuild="directory"]');
      await page.waitForSelector('#job[data-phase="done"]', { timeout: 60_000 });
      expect(await page.locator('[data-job="outcome"]').innerText()).toBe('succeeded');
      expect(await page.locator('[data-job="readModels"]').innerText()).toBe('directory');
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'console.png'), fullPage: true });

      // And the token never went into a URL, nothing came from another origin, and the policy held
      const token = server.services.secrets.directoryToken;
      expect(requested.filter((u) => u.includes(encodeURIComponent(token)) || u.includes(token))).toEqual([]);
      expect(requested.filter((u) => !u.startsWith(server!.url))).toEqual([]);
      expect(violations).toEqual([]);
    },
  );
});
