// @ts-check
import { api, query } from './api.js';
import { attempt, card, h, usd } from './dom.js';
import { keysPanel } from './keys.js';
import { figure } from './operator.js';
import { endUserFilter, fillPanel, requestsView, usageView } from './usage.js';

/**
 * What an account holder signed in with a management key sees: balance, keys, usage and
 * recent requests of their own account.
 * @param {{ account_id: string, key_name?: string }} session
 */
export function accountHolderScreen(session) {
  const figures = h('div', { class: 'figures' });
  const usage = h('div', {});
  const requests = h('div', {});
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const endUser = endUserFilter();

  const refresh = async () => {
    const credits = (await api('GET', '/v1/credits')).data;
    figures.replaceChildren(figure('Balance', usd(credits.balance_usd), 'balance'), figure('Tier', credits.free_tier ? 'free tier' : 'paid'), figure('Account', session.account_id));
    const who = endUser.value.trim();
    void fillPanel(usage, async () => usageView((await api('GET', `/v1/usage${query({ from, end_user: who })}`)).data));
    void fillPanel(requests, async () => requestsView((await api('GET', `/v1/requests${query({ limit: 20, end_user: who })}`)).data));
  };
  void attempt(refresh);

  return h(
    'div',
    {},
    card('Balance', figures),
    card('Keys', keysPanel({ list: '/v1/keys', create: '/v1/keys', key: (k) => `/v1/keys/${encodeURIComponent(k)}` })),
    card('Usage, last 30 days', h('div', { class: 'row' }, endUser, h('button', { type: 'button', class: 'secondary', 'data-testid': 'refresh-usage', onclick: () => void attempt(refresh) }, 'Refresh')), usage),
    card('Recent requests', requests),
  );
}
