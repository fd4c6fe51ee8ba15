// @ts-check
import { api } from './api.js';
import { attempt, flash, formValues, h, shortDate, table, usd } from './dom.js';

/** @typedef {{ key_id: string, name: string, label: string, role: string, disabled: boolean, spend_usd: number, created_at: string, limits: { rpm?: number, concurrent_streams?: number, spend_cap_usd?: Record<string, number>, models?: string[] } }} KeyView */

/**
 * Where a keys panel reads and writes: the operator API for one account, or `/v1/keys`.
 * @typedef {{ list: string, create: string, key: (id: string) => string }} KeyPaths
 */

/** @param {KeyView['limits']} limits */
function limitsText(limits) {
  const parts = [];
  if (limits.rpm !== undefined) parts.push(`${limits.rpm} rpm`);
  if (limits.concurrent_streams !== undefined) parts.push(`${limits.concurrent_streams} streams`);
  for (const [period, cap] of Object.entries(limits.spend_cap_usd ?? {})) parts.push(`${usd(cap)}/${period}`);
  if (limits.models) parts.push(`models: ${limits.models.join(', ')}`);
  return parts.join(' · ') || 'none';
}

/**
 * Limits from the create form; empty fields are left out.
 * @param {Record<string, string>} v
 */
function limitsFrom(v) {
  /** @type {Record<string, unknown>} */
  const limits = {};
  if (v.rpm) limits.rpm = Number(v.rpm);
  if (v.concurrent_streams) limits.concurrent_streams = Number(v.concurrent_streams);
  /** @type {Record<string, string>} */
  const caps = {};
  for (const period of ['day', 'month', 'lifetime']) if (v[`cap_${period}`]) caps[period] = /** @type {string} */ (v[`cap_${period}`]);
  if (Object.keys(caps).length) limits.spend_cap_usd = caps;
  if (v.models) limits.models = v.models.split(',').map((m) => m.trim()).filter(Boolean);
  return limits;
}

/**
 * The limit inputs, filled with a key's current limits when editing.
 * @param {KeyView['limits']} limits
 */
function limitFields(limits) {
  const caps = limits.spend_cap_usd ?? {};
  return [
    h('label', {}, 'Requests/min', h('input', { name: 'rpm', type: 'number', min: 0, value: limits.rpm })),
    h('label', {}, 'Streams', h('input', { name: 'concurrent_streams', type: 'number', min: 0, value: limits.concurrent_streams })),
    h('label', {}, 'Cap/day $', h('input', { name: 'cap_day', inputmode: 'decimal', value: caps.day })),
    h('label', {}, 'Cap/month $', h('input', { name: 'cap_month', inputmode: 'decimal', value: caps.month })),
    h('label', {}, 'Cap/lifetime $', h('input', { name: 'cap_lifetime', inputmode: 'decimal', value: caps.lifetime })),
    h('label', { class: 'wide' }, 'Models (comma-separated, empty = all)', h('input', { name: 'models', value: limits.models?.join(', ') })),
  ];
}

/**
 * A form that replaces a key's limits (empty fields remove that limit).
 * @param {HTMLElement} slot
 * @param {KeyView} key
 * @param {KeyPaths} paths
 * @param {() => Promise<void>} after
 */
function editLimits(slot, key, paths, after) {
  const form = /** @type {HTMLFormElement} */ (h(
    'form',
    { class: 'grid-form', 'data-testid': 'limits-form' },
    ...limitFields(key.limits),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit' }, 'Save limits'),
      h('button', { type: 'button', class: 'secondary', onclick: () => slot.replaceChildren() }, 'Cancel')),
  ));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void attempt(async () => {
      await api('PATCH', paths.key(key.key_id), { limits: limitsFrom(formValues(form)) });
      slot.replaceChildren();
      flash(`Limits of ${key.name} saved.`);
      await after();
    });
  });
  slot.replaceChildren(h('div', { class: 'edit-box' }, h('strong', {}, `Limits of ${key.name}`), form));
}

/**
 * Shows a secret once. It lives only in this element: dismissing it, reloading or leaving
 * the page loses it for good.
 * @param {HTMLElement} slot
 * @param {string} title
 * @param {string} secret
 */
function showSecretOnce(slot, title, secret) {
  const value = h('code', { class: 'secret', 'data-testid': 'new-secret' }, secret);
  const box = h(
    'div',
    { class: 'secret-box', role: 'alert' },
    h('strong', {}, title),
    h('p', {}, 'Copy it now: it is shown only this once.'),
    value,
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: () => void navigator.clipboard?.writeText(secret).then(() => flash('Copied.')) }, 'Copy'),
      h('button', { type: 'button', class: 'secondary', 'data-testid': 'dismiss-secret', onclick: () => box.remove() }, 'Done')),
  );
  slot.replaceChildren(box);
}

/**
 * The keys of one account: list, create (secret shown once), disable/enable, rotate.
 * @param {KeyPaths} paths
 */
export function keysPanel(paths) {
  const secretSlot = h('div', {});
  const editSlot = h('div', {});
  const list = h('div', {});

  async function refresh() {
    /** @type {{ data: KeyView[] }} */
    const res = await api('GET', paths.list);
    list.replaceChildren(
      table(
        [
          { title: 'Name', cell: (k) => k.name },
          { title: 'Key', cell: (k) => h('code', {}, k.label) },
          { title: 'Role', cell: (k) => k.role },
          { title: 'Limits', cell: (k) => limitsText(k.limits) },
          { title: 'Spend', cell: (k) => usd(k.spend_usd), className: 'num' },
          { title: 'State', cell: (k) => h('span', { class: k.disabled ? 'badge off' : 'badge on' }, k.disabled ? 'disabled' : 'active') },
          { title: 'Created', cell: (k) => shortDate(k.created_at) },
          {
            title: '',
            cell: (k) =>
              h('span', { class: 'actions' },
                h('button', { type: 'button', class: 'secondary', 'data-action': 'limits', 'data-key': k.key_id, onclick: () => editLimits(editSlot, k, paths, refresh) }, 'Limits'),
                h('button', { type: 'button', class: 'secondary', 'data-action': 'toggle', 'data-key': k.key_id, onclick: () => attempt(async () => {
                  await api('PATCH', paths.key(k.key_id), { disabled: !k.disabled });
                  flash(`Key ${k.name} ${k.disabled ? 'enabled' : 'disabled'}.`);
                  await refresh();
                }) }, k.disabled ? 'Enable' : 'Disable'),
                h('button', { type: 'button', class: 'secondary', 'data-action': 'rotate', 'data-key': k.key_id, onclick: () => attempt(async () => {
                  if (!confirm(`Rotate ${k.name}? The current secret stops working at once.`)) return;
                  const res = await api('POST', `${paths.key(k.key_id)}/rotate`);
                  showSecretOnce(secretSlot, `New secret for ${k.name}`, res.key);
                  await refresh();
                }) }, 'Rotate')),
          },
        ],
        res.data,
        { testid: 'keys-table', empty: 'No keys yet.' },
      ),
    );
  }

  const form = /** @type {HTMLFormElement} */ (h(
    'form',
    { class: 'grid-form', 'data-testid': 'create-key-form' },
    h('label', {}, 'Name', h('input', { name: 'name', required: true, maxlength: 200, placeholder: 'production' })),
    h('label', {}, 'Role', h('select', { name: 'role' }, h('option', { value: 'inference' }, 'inference'), h('option', { value: 'management' }, 'management'))),
    ...limitFields({}),
    h('button', { type: 'submit' }, 'Create key'),
  ));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void attempt(async () => {
      const v = formValues(form);
      const res = await api('POST', paths.create, { name: v.name, role: v.role, limits: limitsFrom(v) });
      form.reset();
      showSecretOnce(secretSlot, `Key ${res.data.name} created`, res.key);
      await refresh();
    });
  });

  const panel = h('div', { class: 'keys' }, secretSlot, list, editSlot, h('details', {}, h('summary', {}, 'New key'), form));
  void attempt(refresh);
  return panel;
}
