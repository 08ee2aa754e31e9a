/**
 * An auditor uses the audit console (/audit) in a real browser (Debian's chromium, driven by
 * playwright-core): signs in with their own token, finds who shared a resource into a community
 * and from when that community could see it, downloads the history as CSV and has the whole log
 * verified; a user who is not an auditor is refused with the API's 403.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { chromiumRuns, inChromium, launchChromium } from '../support/chromium';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const runs = chromiumRuns();
const maybe = inChromium('audit console');

describe('/audit in a headless browser', () => {
  jest.setTimeout(120_000);
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let resourceId: number;
  let createdAt: string;

  beforeAll(async () => {
    if (!runs) return;
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Grant, "final"',
        resourceUrl: 'https://example.org/grant.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      { token: await server.sessionToken(demo.users.team) },
    );
    expect(saved.status).toBe(200);
    resourceId = saved.body.id;
    createdAt = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const shared = await server.post(
      '/api/Privacy/SaveResourcePrivacy',
      { resourceId, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }] },
      { token: await server.sessionToken(demo.users.admin1) },
    );
    expect(shared.status).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signIn = async (userId: number): Promise<{ page: Page; requested: string[]; token: string }> => {
    const page = await (await browser!.newContext({ acceptDownloads: true })).newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const response = await page.goto(`${server!.url}/audit/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    const token = await server!.sessionToken(userId);
    await page.fill('#credential-secret', token);
    await page.click('#sign-in-form button[type=submit]');
    return { page, requested, token };
  };

  const rowsOf = async (page: Page, selector: string) =>
    page
      .locator(`${selector} tbody tr`)
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));

  maybe(
    'an auditor finds who shared the resource and from when the community saw it, downloads the CSV, pages the events and has the log verified',
    async () => {
      // Given an auditor signed in with their own token
      const { page, requested, token } = await signIn(demo.users.auditor);
      await page.waitForSelector('#console:not([hidden])');
      // Signing in read the integrity head, through the audit API
      await page.waitForSelector('#integrity-result table', { state: 'attached' });

      // When they read the resource's history
      await page.click('nav button[data-tab=history]');
      await page.fill('#history-form input[name=id]', String(resourceId));
      await page.click('#history-form button[type=submit]');
      await page.waitForSelector('#history-result tbody tr');
      const steps = await rowsOf(page, '#history-result');
      // Then the second step is the share into community 2, by Cleo with her session
      expect(steps).toHaveLength(2);
      expect(steps[1]![2]).toBe(`Cleo Park (${demo.users.admin1})`);
      expect(steps[1]![3]).toBe('session');
      expect(steps[1]![6]).toContain(`shared into community ${demo.communities.private2}`);
      const shareTime = steps[1]![1]!;
      expect(Date.parse(shareTime)).toBeGreaterThan(Date.parse(createdAt));

      // And who could see it: before the share nobody in community 2, at the share its admin
      const communityUsers = async (at: string) => {
        await page.click('nav button[data-tab=access]');
        await page.fill('#access-form input[name=id]', String(resourceId));
        await page.fill('#access-form input[name=at]', at);
        await page.click('#access-form button[type=submit]');
        await page.waitForSelector(`#access-result .caption:has-text("${new Date(at).toISOString()}")`);
        return (await rowsOf(page, '#access-result')).filter((r) => r[0] === `c:${demo.communities.private2}`);
      };
      expect(await communityUsers(createdAt)).toEqual([]);
      const atShare = await communityUsers(shareTime);
      expect(atShare.map((r) => r[4])).toContain(`Finn Larsen (${demo.users.admin2})`);

      // And what that admin could see, person by person: the resource from the share on, with why
      const seenBy = async (userId: number, at: string) => {
        await page.click('nav button[data-tab=person]');
        await page.fill('#person-form input[name=id]', String(userId));
        await page.fill('#person-form input[name=at]', at);
        await page.click('#person-form button[type=submit]');
        await page.waitForSelector(`#person-result .caption:has-text("${new Date(at).toISOString()}")`);
        return (await rowsOf(page, '#person-result')).filter((r) => r[3]?.endsWith(`(${resourceId})`));
      };
      expect(await seenBy(demo.users.admin2, createdAt)).toEqual([]);
      const seenAtShare = await seenBy(demo.users.admin2, shareTime);
      expect(seenAtShare.length).toBeGreaterThan(0);
      for (const row of seenAtShare) expect(row[6]).not.toBe('');
      expect(requested.some((u) => u.startsWith(`${server!.url}/api/audit/users/${demo.users.admin2}/access`))).toBe(
        true,
      );

      // When they download the history as CSV
      await page.click('nav button[data-tab=history]');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('#history-result button.download-csv'),
      ]);
      // Then the file is the history's CSV, the quoted name included
      expect(download.suggestedFilename()).toBe(`resource-${resourceId}-history.csv`);
      const text = fs.readFileSync((await download.path())!, 'utf8');
      const lines = text.split('\r\n');
      expect(lines[0]).toMatch(/^resourceId,at,actorUserId,credential,/);
      expect(text).toContain(`"created ""Grant, ""final"""" (https://example.org/grant.pdf)`);
      expect(lines[2]).toContain(`${resourceId},${shareTime},${demo.users.admin1},session,`);

      // When they page through the resource's events one at a time
      await page.click('nav button[data-tab=events]');
      await page.fill('#events-form input[name=stream]', `resource-${resourceId}`);
      await page.fill('#events-form input[name=limit]', '1');
      await page.click('#events-form button[type=submit]');
      await page.waitForSelector('#events-result tbody tr');
      const pages = [await rowsOf(page, '#events-result')];
      while (await page.isEnabled('#events-next')) {
        const shown = pages.at(-1)![0]![0]!;
        await page.click('#events-next');
        await page
          .locator('#events-result tbody td')
          .first()
          .filter({ hasNotText: new RegExp(`^${shown}$`) })
          .waitFor();
        pages.push(await rowsOf(page, '#events-result'));
      }
      // Then each page holds the next event, the last one ends the walk
      expect(pages.map((rows) => rows.map((r) => r[3]))).toEqual([['ResourceCreated'], ['ResourceShared']]);

      // When they ask the service to verify the whole log
      await page.click('nav button[data-tab=integrity]');
      await page.click('#verify-form button[type=submit]');
      await page.waitForSelector('#verify-result tbody tr');
      // Then it is intact, every event counted, through the audit API
      expect(await page.textContent('#verify-result .caption')).toMatch(/^Intact: all \d+ events checked/);
      const [verification] = await rowsOf(page, '#verify-result');
      expect(verification![0]).toBe('yes');
      expect(Number(verification![1])).toBeGreaterThan(0);
      expect(verification![4]).toBe('');
      expect(requested.some((u) => u.startsWith(`${server!.url}/api/audit/integrity?verify=true`))).toBe(true);

      // And nothing left the service, and the credential never went into a URL
      expect(requested.filter((u) => !u.startsWith(server!.url) && !u.startsWith('blob:'))).toEqual([]);
      expect(requested.some((u) => u.includes(token))).toBe(false);
    },
  );

  maybe('a user without the auditor role is refused with the API 403, and the page says so', async () => {
    const { page } = await signIn(demo.users.admin1);
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.textContent('#message')).toContain('403');
    expect(await page.textContent('#message')).toContain('not an auditor');
    expect(await page.isHidden('#console')).toBe(true);
  });
});
