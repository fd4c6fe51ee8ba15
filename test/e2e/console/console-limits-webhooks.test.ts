import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, TEST_ADMIN_TOKEN, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { CHROMIUM_PATH, hasChromium, launchBrowser, screenshot } from './browser.js';

/**
 * The operator console's account limits panel and webhook delivery log, in a real headless
 * chromium against a real web process: limits are edited and refused as the API would, and a
 * delivery is listed and replayed.
 */
if (!hasChromium) console.warn(`[console browser test] skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!hasChromium)('account limits and webhook deliveries in the console', () => {
  let setup: TestGateway;
  let web: WebProcess;
  let browser: Browser;
  let page: Page;
  let admin: ReturnType<typeof adminClient>;
  let accountId: string;

  beforeAll(async () => {
    // Nothing listens at the endpoint: without a worker its delivery stays pending, which is all the log needs.
    const env = testEnv({ LOG_LEVEL: 'warn', WEBHOOK_ALLOW_LOOPBACK: 'true' });
    setup = await startTestGateway({ env });
    web = await spawnWeb(env, 240_000);
    admin = adminClient(web.url);
    accountId = await admin.createAccount('Limits Co');
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.url}/console`);
    await page.getByTestId('sign-in-form').waitFor();
    await page.fill('input[name=token]', TEST_ADMIN_TOKEN);
    await page.click('[data-testid=sign-in-form] button[type=submit]');
    await page.getByTestId('accounts-table').waitFor();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    await setup?.close();
  });

  const textOf = async (selector: string) => (await page.locator(selector).first().textContent({ timeout: 500 }).catch(() => '')) ?? '';

  it('shows and edits the account limits through the operator API, refusing what the API refuses', async () => {
    await page.goto(`${web.url}/console#account/${accountId}`);
    await expect.poll(() => textOf('[data-testid=account-limits]')).toBe('none');
    await page.click('.account-limits details summary');
    await page.fill('[data-testid=account-limits-form] input[name=cap_day]', '2');
    await page.fill('[data-testid=account-limits-form] input[name=cap_week]', '5');
    await page.fill('[data-testid=account-limits-form] input[name=rpm]', '100');
    await page.fill('[data-testid=account-limits-form] input[name=tpm]', '20000');
    await screenshot(page, '10-account-limits');
    await page.click('[data-testid=account-limits-form] button[type=submit]');
    await expect.poll(() => textOf('[data-testid=account-limits]')).toBe('$2.00/day · $5.00/week · 100 rpm · 20000 tpm');
    const stored = await admin.call('GET', `/accounts/${accountId}`);
    expect(stored.body.data.limits).toEqual({ spend_cap_usd: { day: 2, week: 5 }, rpm: 100, tpm: 20000 });

    // A day cap above the week cap is refused with the API's reason, and nothing changes.
    await page.click('.account-limits details summary');
    await page.fill('[data-testid=account-limits-form] input[name=cap_day]', '9');
    await page.click('[data-testid=account-limits-form] button[type=submit]');
    await expect.poll(() => textOf('#flash')).toContain('above the week cap');
    expect((await admin.call('GET', `/accounts/${accountId}`)).body.data.limits.spend_cap_usd).toEqual({ day: 2, week: 5 });

    // Emptying a field removes that limit; the form shows what is stored after a reload.
    await page.fill('[data-testid=account-limits-form] input[name=cap_day]', '');
    await page.fill('[data-testid=account-limits-form] input[name=tpm]', '');
    await page.click('[data-testid=account-limits-form] button[type=submit]');
    await expect.poll(() => textOf('[data-testid=account-limits]')).toBe('$5.00/week · 100 rpm');
    await page.reload();
    await expect.poll(() => textOf('[data-testid=account-limits]')).toBe('$5.00/week · 100 rpm');
    expect(await page.locator('[data-testid=account-limits-form] input[name=cap_week]').inputValue()).toBe('5');
  }, 60_000);

  it('lists the delivery log of the account and replays a delivery', async () => {
    const endpoint = await admin.call('POST', `/accounts/${accountId}/webhooks`, { url: 'https://127.0.0.1:9/hooks', events: ['topup.completed'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect((await admin.topup(accountId, 3)).status).toBe(201);

    await page.goto(`${web.url}/console#account/${accountId}`);
    await page.click('[data-testid=webhooks-link]');
    await page.getByTestId('webhooks-screen').waitFor();
    expect(await textOf('[data-testid=webhooks-screen] h2')).toBe('https://127.0.0.1:9/hooks');
    // The event is emitted beside the top-up, not in it: refresh until its delivery is logged.
    for (let i = 0; i < 20 && !(await textOf('[data-testid=deliveries-table]')).includes('topup.completed'); i++) {
      await page.click('[data-testid=refresh-deliveries]');
      await page.waitForTimeout(300);
    }
    const row = page.locator('[data-testid=deliveries-table] tbody tr', { hasText: 'topup.completed' });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('pending');
    const [delivery] = (await admin.call('GET', `/webhooks/${endpoint.body.data.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ type: 'topup.completed', replays: 0 });
    await screenshot(page, '11-webhook-deliveries');

    await row.locator('[data-action=replay]').click();
    await expect.poll(() => textOf('#flash')).toContain('queued again');
    await expect.poll(async () => (await admin.call('GET', `/webhooks/${endpoint.body.data.id}/deliveries`)).body.data[0].replays).toBe(1);
    // The table shows the replay count (the fifth column).
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('1');

    // The status filter asks the API for that status only.
    await page.selectOption('[data-testid=delivery-status-filter]', 'failed');
    await expect.poll(() => textOf('[data-testid=deliveries-table] tbody')).toBe('No deliveries yet.');
    await page.selectOption('[data-testid=delivery-status-filter]', 'pending');
    await expect.poll(() => textOf('[data-testid=deliveries-table] tbody')).toContain('topup.completed');
  }, 60_000);

  it('narrows the usage charts and the recent requests of an account to one end user', async () => {
    await admin.topup(accountId, 1);
    const { raw } = await admin.mintKey(accountId);
    for (const user of ['ann', 'ann', 'ben']) {
      const res = await fetch(`${web.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'local/echo', user, messages: [{ role: 'user', content: `hi from ${user}` }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.goto(`${web.url}/console#account/${accountId}`);
    await page.fill('[data-testid=usage-end-user]', 'ann');
    // Records are written in batches after the answers: refresh until both of ann's are in.
    const requestsChart = page.getByTestId('chart-requests');
    for (let i = 0; i < 20; i++) {
      await page.click('[data-testid=refresh-usage]');
      await page.waitForTimeout(500);
      if ((await requestsChart.getAttribute('data-total', { timeout: 500 }).catch(() => null)) === '2') break;
    }
    expect(await requestsChart.getAttribute('data-total')).toBe('2');
    await expect.poll(() => page.locator('[data-testid=requests-table] tbody tr').count()).toBe(2);
    expect(await textOf('[data-testid=requests-table] tbody')).not.toContain('ben');
    await screenshot(page, '12-usage-by-end-user');
    await page.fill('[data-testid=usage-end-user]', '');
    await page.click('[data-testid=refresh-usage]');
    await expect.poll(() => requestsChart.getAttribute('data-total', { timeout: 500 }).catch(() => null)).toBe('3');
  }, 60_000);

  it('says so when an account has no endpoints', async () => {
    const other = await admin.createAccount('No Hooks');
    await page.goto(`${web.url}/console#webhooks/${other}`);
    await expect.poll(() => textOf('[data-testid=no-endpoints]')).toBe('No webhook endpoints.');
  }, 60_000);
});
