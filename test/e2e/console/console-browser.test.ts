import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, TEST_ADMIN_TOKEN, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { CHROMIUM_PATH, hasChromium, launchBrowser, screenshot } from './browser.js';

/**
 * The console in a real headless chromium against a real web process: an operator signs in,
 * creates and funds an account, mints a key (shown once), the key is used, and its spend and
 * request appear; then the account holder signs in with a management key.
 */
if (!hasChromium) console.warn(`[console browser test] skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!hasChromium)('the console in a browser', () => {
  let setup: TestGateway;
  let web: WebProcess;
  let browser: Browser;
  let page: Page;
  const state: { accountId?: string; secret?: string; managementSecret?: string; requestId?: string; cost?: number } = {};

  beforeAll(async () => {
    const env = testEnv({ LOG_LEVEL: 'warn' });
    setup = await startTestGateway({ env });
    web = await spawnWeb(env);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('dialog', (dialog) => void dialog.accept());
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    await setup?.close();
  });

  const usd = (value: number) => `$${value.toFixed(Math.abs(value) >= 1 || value === 0 ? 2 : 6)}`;

  /** Text of the first match, or '' when there is none yet (for polling). */
  const textOf = async (selector: string) => (await page.locator(selector).first().textContent({ timeout: 500 }).catch(() => '')) ?? '';

  async function signIn(token: string) {
    await page.goto(`${web.url}/console`);
    await page.getByTestId('sign-in-form').waitFor();
    await page.fill('input[name=token]', token);
    await page.click('[data-testid=sign-in-form] button[type=submit]');
  }

  /** Clicks Refresh until the selector's text contains `text` (records are written after the answer). */
  async function refreshUntil(selector: string, text: string) {
    for (let i = 0; i < 20; i++) {
      if ((await textOf(selector)).includes(text)) return;
      await page.click('[data-testid=refresh-usage]');
      await page.waitForTimeout(500);
    }
    throw new Error(`${selector} never showed ${text}: ${await page.locator('main').textContent()}`);
  }

  it('signs the operator in, creates and tops up an account, and mints a key shown only once', async () => {
    await signIn('wrong-token');
    await expect.poll(() => page.locator('#flash').textContent()).toContain('Invalid operator token');
    await screenshot(page, '01-sign-in');
    await signIn(TEST_ADMIN_TOKEN);
    await page.getByTestId('accounts-table').waitFor();
    await screenshot(page, '02-accounts-empty');

    await page.fill('[data-testid=create-account-form] input[name=name]', 'Browser Co');
    await page.click('[data-testid=create-account-form] button');
    await page.waitForURL(/#account\/acct_/);
    state.accountId = decodeURIComponent(page.url().split('#account/')[1] ?? '');
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('$0.00');
    await expect.poll(() => textOf('.badge.free')).toBe('free tier');

    await page.fill('[data-testid=topups-form] input[name=amount_usd]', '10');
    await page.fill('[data-testid=topups-form] input[name=reference]', 'invoice-42');
    await page.click('[data-testid=topups-form] button');
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('$10.00');

    await page.click('details summary');
    await page.fill('[data-testid=create-key-form] input[name=name]', 'browser-key');
    await page.fill('[data-testid=create-key-form] input[name=rpm]', '60');
    await page.fill('[data-testid=create-key-form] input[name=cap_day]', '5');
    await page.click('[data-testid=create-key-form] button[type=submit]');
    const secret = (await page.getByTestId('new-secret').textContent({ timeout: 10_000 })) ?? '';
    expect(secret).toMatch(/^sk-fbx-[A-Za-z0-9_-]{43}$/);
    state.secret = secret;
    await expect.poll(() => page.getByTestId('keys-table').textContent()).toContain('60 rpm');
    await screenshot(page, '03-key-created');

    // Limits are replaced as a whole through PATCH: the day cap stays, the rpm changes.
    await page.click('[data-testid=keys-table] [data-action=limits]');
    await page.fill('[data-testid=limits-form] input[name=rpm]', '120');
    await screenshot(page, '03b-key-limits');
    await page.click('[data-testid=limits-form] button[type=submit]');
    await expect.poll(() => page.getByTestId('keys-table').textContent()).toContain('120 rpm · $5.00/day');

    // Shown once: gone after dismissing, and nowhere after a reload.
    await page.click('[data-testid=dismiss-secret]');
    expect(await page.locator('body').textContent()).not.toContain(secret);
    await page.reload();
    await page.getByTestId('keys-table').waitFor();
    await expect.poll(() => page.getByTestId('keys-table').textContent()).toContain('browser-key');
    expect(await page.content()).not.toContain(secret);

    // The account list shows the balance and the end of the free tier.
    await page.click('nav a[href="#accounts"]');
    await expect.poll(() => page.getByTestId('accounts-table').textContent()).toContain('Browser Co');
    const row = page.locator('[data-testid=accounts-table] tr', { hasText: 'Browser Co' });
    expect(await row.textContent()).toContain('$10.00');
    expect(await row.textContent()).toContain('paid');
    await screenshot(page, '04-accounts');
  }, 60_000);

  it('charges a chat request made with the key (balance shown in the console)', async () => {
    const client = new OpenAI({ apiKey: state.secret, baseURL: `${web.url}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'hello console' }] }).withResponse();
    state.cost = (data.usage as OpenAI.CompletionUsage & { cost: number }).cost;
    state.requestId = response.headers.get('x-request-id') ?? '';
    expect(state.cost).toBeGreaterThan(0);
    expect(state.requestId).not.toBe('');
    await page.goto(`${web.url}/console#account/${state.accountId}`);
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe(usd(10 - state.cost!));
    await expect.poll(() => page.getByTestId('keys-table').textContent()).toContain(usd(state.cost!));
  }, 60_000);

  it('shows the spend on the usage chart and the request in the request list', async () => {
    await page.goto(`${web.url}/console#account/${state.accountId}`);
    await page.getByTestId('keys-table').waitFor();
    await screenshot(page, '05-account-usage');
    await refreshUntil('[data-testid=usage-table]', 'local/echo');
    const usageRow = page.locator('[data-testid=usage-table] tbody tr', { hasText: 'local/echo' });
    expect(await usageRow.textContent()).toContain(usd(state.cost!));
    const spendChart = page.getByTestId('chart-cost_usd');
    expect(await spendChart.getAttribute('data-models')).toBe('local/echo');
    expect(Number(await spendChart.getAttribute('data-total'))).toBeCloseTo(state.cost!, 9);
    expect(await page.getByTestId('chart-requests').getAttribute('data-total')).toBe('1');
    await expect.poll(() => spendChart.locator('canvas').count()).toBe(1);
    await refreshUntil('[data-testid=requests-table]', state.requestId!);
    await screenshot(page, '05-account-usage');
  }, 60_000);

  it('shows the catalog with availability', async () => {
    await page.click('nav a[href="#catalog"]');
    await page.getByTestId('catalog-table').waitFor();
    const echo = page.locator('[data-testid=catalog-table] tr', { hasText: 'local/echo-free' });
    expect(await echo.textContent()).toContain('available');
    await screenshot(page, '06-catalog');
  }, 60_000);

  it('opens the queue dashboard with the operator session', async () => {
    await page.goto(`${web.url}/admin/queues`);
    // The board renders its queue list from its JSON API, which the session cookie reaches too.
    await expect.poll(() => page.locator('#root').textContent(), { timeout: 20_000 }).toMatch(/images[\s\S]*ocr/);
    await screenshot(page, '06b-queue-dashboard');
    await page.goto(`${web.url}/console#catalog`);
    await page.getByTestId('catalog-table').waitFor();
  }, 60_000);

  it('shows usage of every account by model, with CSV exports', async () => {
    await page.click('nav a[href="#usage"]');
    await expect.poll(() => page.locator('main').textContent()).toContain('Exports');
    expect(await page.locator('a[href="/v1/admin/ledger.csv"]').count()).toBe(1);
    await screenshot(page, '07-usage');
    await expect.poll(() => page.locator('[data-testid=usage-table]').textContent({ timeout: 5_000 }).catch(() => '')).toContain('local/echo');
    const ledger = await page.evaluate(async () => (await fetch('/v1/admin/ledger.csv')).status);
    expect(ledger).toBe(200);
  }, 60_000);

  it('signs the account holder in with a management key: keys, balance', async () => {
    await page.goto(`${web.url}/console#account/${state.accountId}`);
    await page.click('details summary');
    await page.fill('[data-testid=create-key-form] input[name=name]', 'console-login');
    await page.selectOption('[data-testid=create-key-form] select[name=role]', 'management');
    await page.click('[data-testid=create-key-form] button[type=submit]');
    state.managementSecret = (await page.getByTestId('new-secret').textContent({ timeout: 10_000 })) ?? '';
    await page.click('#sign-out');
    await page.getByTestId('sign-in-form').waitFor();

    await signIn(state.managementSecret);
    await expect.poll(() => page.locator('#who').textContent()).toBe(`Account ${state.accountId}`);
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe(usd(10 - state.cost!));
    await expect.poll(() => page.getByTestId('keys-table').textContent()).toContain('browser-key');
    expect(await textOf('[data-testid=keys-table]')).toContain('console-login');
    // Operator pages are out of reach for this session.
    expect(await page.evaluate(async () => (await fetch('/v1/admin/models')).status)).toBe(401);
    // Disabling a key from the console works through /v1/keys (same-origin cookie request).
    await page.locator('[data-testid=keys-table] tr', { hasText: 'browser-key' }).locator('[data-action=toggle]').click();
    await expect.poll(() => page.locator('[data-testid=keys-table] tr', { hasText: 'browser-key' }).textContent()).toContain('disabled');
    await screenshot(page, '08-account-holder');
  }, 60_000);

  it('shows the account holder its usage and recent requests', async () => {
    await screenshot(page, '09-account-holder-usage');
    await refreshUntil('[data-testid=usage-table]', 'local/echo');
    expect(await page.locator('[data-testid=usage-table] tbody tr', { hasText: 'local/echo' }).textContent()).toContain(usd(state.cost!));
    await refreshUntil('[data-testid=requests-table]', state.requestId!);
    await screenshot(page, '09-account-holder-usage');
  }, 60_000);
});
