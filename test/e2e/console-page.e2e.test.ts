/**
 * An operator opens /console in a real browser (Debian's chromium, driven by playwright-core),
 * signs in with the operator token, sees every read model, sees a write move its position, and
 * rebuilds one read model from the page, following the job until it is done; and sees each event a
 * projection parked, and ends it from the page with Skip, or with Retry once its fault is gone.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { READ_MODEL_NAMES } from '../../src/app/read-model-list';
import { inChromium, launchChromium } from '../support/chromium';
import { demo, demoDirectory } from '../support/demo-directory';
import { poisonDirectory } from '../support/poisoned-directory';
import { startTestServer, type TestServer } from '../support/test-server';

const maybe = inChromium('console page');
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');

describe('/console in a headless browser', () => {
  jest.setTimeout(120_000);
  let server: TestServer | undefined;
  let parkingServer: TestServer | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await parkingServer?.close();
  });

  /** A page of `on`'s console, signed in with its directory token, or the operator token given. */
  const signedIn = async (on: TestServer, token = on.services.secrets.directoryToken): Promise<Page> => {
    browser ??= await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${on.url}/console`);
    await page.fill('#token', token);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#read-models tbody tr[data-read-model]', { timeout: 30_000 });
    return page;
  };

  maybe(
    "signed in with an operator's own token, lists each parked event with its read model, stream, position, type, error and failures; Skip ends one, Retry ends another once its fault is gone, each recorded under her name",
    async () => {
      // Given a service whose directory projection parks an event at its first failure, and
      // throws on the users named in `poisoned`, as a bug in its fold would, and an operator
      // with a token of her own
      const graceToken = randomBytes(32).toString('base64url');
      parkingServer = await startTestServer({
        PROJECTION_PARK_AFTER: '1',
        OPERATOR_TOKENS: `Grace Hopper=${graceToken}`,
      });
      const on = parkingServer;
      expect((await on.directory(demoDirectory.events)).status).toBe(200);
      const poisoned = poisonDirectory(on);
      poisoned.add('Skipped Pill').add('Retried Pill');
      const addUser = async (userId: number, name: string) => {
        const answer = await on.directory([{ type: 'UserUpserted', data: { userId, name, status: 'active' } }]);
        expect(answer.status).toBe(200);
        return (answer.body as { position: string }).position;
      };
      const page = await signedIn(on, graceToken);
      expect(await page.locator('#no-parked').isVisible()).toBe(true);

      // When the projection fails on two events
      const skipped = await addUser(911, 'Skipped Pill');
      const retried = await addUser(912, 'Retried Pill');

      // Then the page lists both, with what an operator needs to judge them
      const row = (position: string) => page.locator(`tr[data-parked="directory@${position}"]`);
      await row(retried).waitFor({ timeout: 30_000 });
      const shown = async (position: string) =>
        Object.fromEntries(
          await Promise.all(
            ['readModel', 'stream', 'position', 'type', 'error', 'failures'].map(
              async (col) => [col, await row(position).locator(`td[data-col="${col}"]`).innerText()] as const,
            ),
          ),
        );
      expect(await shown(skipped)).toEqual({
        readModel: 'directory',
        stream: 'directory',
        position: skipped,
        type: 'UserUpserted',
        error: 'the directory cannot fold Skipped Pill',
        failures: '1',
      });
      expect(await shown(retried)).toMatchObject({
        position: retried,
        error: 'the directory cannot fold Retried Pill',
      });
      expect(await page.locator('#parked-events tbody tr').count()).toBe(2);
      expect(await page.locator('#no-parked').isVisible()).toBe(false);

      // When the operator skips the first, then it leaves the list and the other stays
      await page.fill('#operator-name', 'Ada');
      await page.click(`button[data-skip="directory@${skipped}"]`);
      await row(skipped).waitFor({ state: 'detached', timeout: 30_000 });
      expect(await row(retried).count()).toBe(1);

      // When the fault is removed and the operator retries the second, then it leaves the list too
      poisoned.delete('Retried Pill');
      await page.click(`button[data-retry="directory@${retried}"]`);
      await row(retried).waitFor({ state: 'detached', timeout: 30_000 });
      await page.locator('#no-parked').waitFor({ state: 'visible', timeout: 30_000 });

      // And the service agrees: nothing parked, both decisions recorded under the name her token
      // proves, not the one typed on the page
      const operator = { 'x-directory-token': on.services.secrets.directoryToken };
      expect((await on.get('/internal/read-models/directory/parked', { headers: operator })).body).toEqual([]);
      const decisions = await on.get('/api/audit/events?stream=operator-decisions', {
        token: await on.sessionToken(demo.users.auditor),
      });
      expect(
        (decisions.body.items as { type: string; data: { position: string; operator: unknown } }[]).map((e) => [
          e.type,
          e.data.position,
          e.data.operator,
        ]),
      ).toEqual([
        ['ParkedEventSkipped', skipped, { credential: 'operatorToken', name: 'Grace Hopper' }],
        ['ParkedEventRetried', retried, { credential: 'operatorToken', name: 'Grace Hopper' }],
      ]);
      expect(await page.locator('#message').innerText()).toBe('');
    },
  );

  maybe(
    'signs in with the operator token, lists every read model, shows a write and follows a rebuild to done',
    async () => {
      // Given the service with the demo directory
      server = await startTestServer();
      await server.directory(demoDirectory.events);
      const team = await server.token(demo.users.team);
      const names = [...READ_MODEL_NAMES].sort();

      // When an operator opens /console and signs in
      browser ??= await launchChromium();
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
