// @ts-check
import { api, query } from './api.js';
import { attempt, card, flash, h, shortDate, table } from './dom.js';

/** @typedef {{ id: string, url: string, description: string | null, events: string[], disabled: boolean }} EndpointView */
/** @typedef {{ id: string, event_id: string, type: string, status: 'pending' | 'succeeded' | 'failed', attempts: number, response_code: number | null, last_error: string | null, replays: number, created_at: string, updated_at: string }} DeliveryView */

/** @param {DeliveryView['status']} status */
function statusBadge(status) {
  const kind = status === 'succeeded' ? 'on' : status === 'failed' ? 'off' : 'free';
  return h('span', { class: `badge ${kind}` }, status);
}

/**
 * One endpoint's delivery log, newest first, with a status filter and replay.
 * @param {EndpointView} endpoint
 */
function deliveriesPanel(endpoint) {
  const list = h('div', {});
  const base = `/v1/admin/webhooks/${encodeURIComponent(endpoint.id)}`;
  const filter = /** @type {HTMLSelectElement} */ (h(
    'select',
    { name: 'status', 'data-testid': 'delivery-status-filter' },
    h('option', { value: '' }, 'all'),
    ...['pending', 'succeeded', 'failed'].map((s) => h('option', { value: s }, s)),
  ));

  async function refresh() {
    /** @type {{ data: DeliveryView[] }} */
    const res = await api('GET', `${base}/deliveries${query({ limit: 50, status: filter.value })}`);
    list.replaceChildren(
      table(
        [
          { title: 'Event', cell: (d) => h('span', {}, d.type, ' ', h('code', { class: 'muted' }, d.event_id)) },
          { title: 'Status', cell: (d) => statusBadge(d.status) },
          { title: 'Code', cell: (d) => (d.response_code === null ? '—' : d.response_code), className: 'num' },
          { title: 'Attempts', cell: (d) => d.attempts, className: 'num' },
          { title: 'Replays', cell: (d) => d.replays, className: 'num' },
          { title: 'Last error', cell: (d) => d.last_error ?? '' },
          { title: 'Updated', cell: (d) => shortDate(d.updated_at) },
          {
            title: '',
            cell: (d) =>
              h('button', { type: 'button', class: 'secondary', 'data-action': 'replay', 'data-delivery': d.id, onclick: () => attempt(async () => {
                await api('POST', `${base}/deliveries/${encodeURIComponent(d.id)}/replay`);
                flash(`Delivery of ${d.type} queued again.`);
                await refresh();
              }) }, 'Replay'),
          },
        ],
        res.data,
        { testid: 'deliveries-table', empty: 'No deliveries yet.' },
      ),
    );
  }
  filter.addEventListener('change', () => void attempt(refresh));
  void attempt(refresh);

  return h(
    'section',
    { class: 'card', 'data-endpoint': endpoint.id },
    h('h2', {}, endpoint.url),
    h('p', { class: 'muted' }, `${endpoint.id} · ${endpoint.events.join(', ')}${endpoint.disabled ? ' · disabled' : ''}`),
    h('div', { class: 'row' },
      h('label', {}, 'Status ', filter),
      h('button', { type: 'button', class: 'secondary', 'data-testid': 'refresh-deliveries', onclick: () => void attempt(refresh) }, 'Refresh')),
    list,
  );
}

/**
 * The webhook delivery log of one account: each endpoint's deliveries (status, response code,
 * attempts), with replay.
 * @param {string} accountId
 */
export function webhooksScreen(accountId) {
  const body = h('div', {});
  void attempt(async () => {
    /** @type {{ data: EndpointView[] }} */
    const res = await api('GET', `/v1/admin/accounts/${encodeURIComponent(accountId)}/webhooks`);
    body.replaceChildren(
      ...(res.data.length ? res.data.map(deliveriesPanel) : [card('Webhook deliveries', h('p', { class: 'empty', 'data-testid': 'no-endpoints' }, 'No webhook endpoints.'))]),
    );
  });
  return h(
    'div',
    { 'data-testid': 'webhooks-screen' },
    h('p', {}, h('a', { href: `#account/${encodeURIComponent(accountId)}` }, `← Account ${accountId}`)),
    body,
  );
}
