// @ts-check
import { api, query } from './api.js';
import { attempt, card, flash, formValues, h, shortDate, table, usd } from './dom.js';
import { accountLimitsPanel } from './account-limits.js';
import { keysPanel } from './keys.js';
import { endUserFilter, fillPanel, requestsView, usageView } from './usage.js';

/** @typedef {{ account_id: string, name: string | null, balance_usd: number, free_tier: boolean, created_at: string }} AccountView */

/** @param {boolean} free */
function tierBadge(free) {
  return h('span', { class: free ? 'badge free' : 'badge paid' }, free ? 'free tier' : 'paid');
}

/** @param {number} days */
function daysAgo(days) {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

/** The operator's account list: search, page on, create. */
export function accountsScreen() {
  const rows = h('div', {});
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load more');
  /** @type {string | null} */
  let cursor = null;
  let q = '';
  /** @type {AccountView[]} */
  let shown = [];

  async function load(reset = false) {
    if (reset) {
      cursor = null;
      shown = [];
    }
    const res = await api('GET', `/v1/admin/accounts${query({ limit: 25, cursor, q })}`);
    shown = [...shown, ...res.data];
    cursor = res.next_cursor;
    more.hidden = !cursor;
    rows.replaceChildren(
      table(
        [
          { title: 'Account', cell: (a) => h('a', { href: `#account/${a.account_id}` }, h('code', {}, a.account_id)) },
          { title: 'Name', cell: (a) => a.name ?? '—' },
          { title: 'Balance', cell: (a) => usd(a.balance_usd), className: 'num' },
          { title: 'Tier', cell: (a) => tierBadge(a.free_tier) },
          { title: 'Created', cell: (a) => shortDate(a.created_at) },
        ],
        shown,
        { testid: 'accounts-table', empty: 'No accounts.' },
      ),
    );
  }
  more.addEventListener('click', () => void attempt(() => load()));

  const search = /** @type {HTMLFormElement} */ (h('form', { class: 'row' }, h('input', { name: 'q', type: 'search', placeholder: 'Account id or name' }), h('button', { type: 'submit', class: 'secondary' }, 'Search')));
  search.addEventListener('submit', (e) => {
    e.preventDefault();
    q = formValues(search).q ?? '';
    void attempt(() => load(true));
  });

  const create = /** @type {HTMLFormElement} */ (h('form', { class: 'row', 'data-testid': 'create-account-form' }, h('input', { name: 'name', placeholder: 'Name', required: true, maxlength: 200 }), h('button', { type: 'submit' }, 'Create account')));
  create.addEventListener('submit', (e) => {
    e.preventDefault();
    void attempt(async () => {
      const res = await api('POST', '/v1/admin/accounts', { name: formValues(create).name });
      flash(`Account ${res.data.account_id} created.`);
      location.hash = `#account/${res.data.account_id}`;
    });
  });

  void attempt(() => load(true));
  return h('div', {}, card('Accounts', h('div', { class: 'row spread' }, search, create), rows, more));
}

/**
 * A credit form (top-up or grant).
 * @param {string} accountId
 * @param {'topups' | 'grants'} kind
 * @param {() => Promise<void>} after
 */
function creditForm(accountId, kind, after) {
  const form = /** @type {HTMLFormElement} */ (h(
    'form',
    { class: 'row', 'data-testid': `${kind}-form` },
    h('input', { name: 'amount_usd', inputmode: 'decimal', placeholder: 'Amount USD', required: true }),
    h('input', { name: 'reference', placeholder: 'Reference (idempotent)', required: true, pattern: '[A-Za-z0-9._:@\\-]{1,200}' }),
    h('button', { type: 'submit' }, kind === 'topups' ? 'Top up' : 'Grant'),
  ));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void attempt(async () => {
      const v = formValues(form);
      const res = await api('POST', `/v1/admin/accounts/${accountId}/${kind}`, { amount_usd: v.amount_usd, reference: v.reference });
      form.reset();
      flash(res.data.entry && kind === 'topups' ? `Topped up; balance ${usd(res.data.account.balance_usd)}.` : `Granted; balance ${usd(res.data.account.balance_usd)}.`);
      await after();
    });
  });
  return h('fieldset', { class: 'credit' }, h('legend', {}, kind === 'topups' ? 'Top-up (ends the free tier)' : 'Grant (promotional credit)'), form);
}

/**
 * One account: figures, credits, keys, account limits, usage, recent requests, CSV exports and
 * a link to its webhook delivery log.
 * @param {string} accountId
 */
export function accountScreen(accountId) {
  const figures = h('div', { class: 'figures' });
  const usage = h('div', {});
  const requests = h('div', {});
  const id = encodeURIComponent(accountId);
  const endUser = endUserFilter();

  async function loadFigures() {
    const a = (await api('GET', `/v1/admin/accounts/${id}`)).data;
    figures.replaceChildren(
      figure('Balance', usd(a.balance_usd), 'balance'),
      h('div', { class: 'figure' }, h('span', {}, 'Tier'), tierBadge(a.free_tier)),
      figure('Topped up', usd(a.topped_up_usd)),
      figure('Granted', usd(a.granted_usd)),
      figure('Charged', usd(a.charged_usd)),
    );
  }
  const refreshAll = async () => {
    await loadFigures();
    const who = endUser.value.trim();
    void fillPanel(usage, async () => usageView((await api('GET', `/v1/admin/usage${query({ account_id: accountId, from: daysAgo(30), end_user: who })}`)).data));
    void fillPanel(requests, async () => requestsView((await api('GET', `/v1/admin/requests${query({ account_id: accountId, limit: 20, end_user: who })}`)).data));
  };
  void attempt(refreshAll);

  return h(
    'div',
    {},
    h('p', {}, h('a', { href: '#accounts' }, '← Accounts')),
    card(`Account ${accountId}`, figures, h('div', { class: 'credits' }, creditForm(accountId, 'topups', loadFigures), creditForm(accountId, 'grants', loadFigures)),
      h('p', { class: 'exports' }, 'Export CSV: ',
        h('a', { href: `/v1/admin/ledger.csv${query({ account_id: accountId })}`, download: '' }, 'ledger'), ' · ',
        h('a', { href: `/v1/admin/requests.csv${query({ account_id: accountId })}`, download: '' }, 'requests'), ' · ',
        h('a', { href: `#webhooks/${id}`, 'data-testid': 'webhooks-link' }, 'webhook deliveries'))),
    card('Keys', keysPanel({ list: `/v1/admin/accounts/${id}/keys`, create: `/v1/admin/accounts/${id}/keys`, key: (k) => `/v1/admin/keys/${encodeURIComponent(k)}` })),
    card('Account limits', accountLimitsPanel(accountId)),
    card('Usage, last 30 days', h('div', { class: 'row' }, endUser, h('button', { type: 'button', class: 'secondary', 'data-testid': 'refresh-usage', onclick: () => void attempt(refreshAll) }, 'Refresh')), usage),
    card('Recent requests', requests),
  );
}

/**
 * @param {string} label
 * @param {string} value
 * @param {string} [testid]
 */
export function figure(label, value, testid) {
  return h('div', { class: 'figure' }, h('span', {}, label), h('strong', { 'data-testid': testid }, value));
}

/** The catalog with each entry's availability. */
export function catalogScreen() {
  const body = h('div', {});
  void fillPanel(body, async () => {
    const models = (await api('GET', '/v1/admin/models')).data;
    return table(
      [
        { title: 'Model', cell: (m) => h('code', {}, m.id) },
        { title: 'Name', cell: (m) => m.name },
        { title: 'Kind', cell: (m) => m.kind },
        { title: 'Provider', cell: (m) => m.provider },
        { title: 'Pricing (USD/unit)', cell: (m) => Object.entries(m.pricing ?? {}).map(([unit, price]) => `${unit} ${price}`).join(' · ') },
        { title: 'Free tier', cell: (m) => (m.free_tier ? 'yes' : '') },
        { title: 'Available', cell: (m) => h('span', { class: m.available ? 'badge on' : 'badge off' }, m.available ? 'available' : 'unavailable') },
      ],
      models,
      { testid: 'catalog-table' },
    );
  });
  return card('Catalog', body);
}

/** Usage of every account by model and day, and the whole-ledger exports. */
export function usageScreen() {
  const body = h('div', {});
  void fillPanel(body, async () => usageView((await api('GET', `/v1/admin/usage${query({ from: daysAgo(30) })}`)).data));
  return h(
    'div',
    {},
    card('Usage, all accounts, last 30 days', body),
    card('Exports', h('p', { class: 'exports' }, 'CSV of every account: ',
      h('a', { href: '/v1/admin/ledger.csv', download: '' }, 'ledger'), ' · ',
      h('a', { href: '/v1/admin/requests.csv', download: '' }, 'requests'), ' · ',
      h('a', { href: '/admin/queues' }, 'queue dashboard'))),
  );
}
