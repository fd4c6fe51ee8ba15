// @ts-check
import { api } from './api.js';
import { attempt, flash, formValues, h, usd } from './dom.js';

/** @typedef {{ spend_cap_usd?: { day?: number, week?: number, month?: number }, rpm?: number, tpm?: number }} AccountLimits */

const WINDOWS = /** @type {const} */ (['day', 'week', 'month']);

/** @param {AccountLimits} limits */
export function accountLimitsText(limits) {
  const parts = [];
  for (const window of WINDOWS) {
    const cap = limits.spend_cap_usd?.[window];
    if (cap !== undefined) parts.push(`${usd(cap)}/${window}`);
  }
  if (limits.rpm !== undefined) parts.push(`${limits.rpm} rpm`);
  if (limits.tpm !== undefined) parts.push(`${limits.tpm} tpm`);
  return parts.join(' · ') || 'none';
}

/**
 * The PUT body from the form: empty fields are left out, so saving an empty form removes every
 * limit. Amounts go as typed (decimal strings), so the API's exact parser sees them.
 * @param {Record<string, string>} v
 */
function limitsFrom(v) {
  /** @type {Record<string, unknown>} */
  const limits = {};
  /** @type {Record<string, string>} */
  const caps = {};
  for (const window of WINDOWS) if (v[`cap_${window}`]) caps[window] = /** @type {string} */ (v[`cap_${window}`]);
  if (Object.keys(caps).length) limits.spend_cap_usd = caps;
  if (v.rpm) limits.rpm = Number(v.rpm);
  if (v.tpm) limits.tpm = Number(v.tpm);
  return limits;
}

/**
 * An account's limits across all its keys (spend caps per day, ISO week and month, requests
 * and tokens per minute): shown, and replaced as a whole through the operator API.
 * @param {string} accountId
 */
export function accountLimitsPanel(accountId) {
  const path = `/v1/admin/accounts/${encodeURIComponent(accountId)}`;
  const current = h('p', { 'data-testid': 'account-limits' }, '…');
  const slot = h('div', {});

  /** @param {AccountLimits} limits */
  function show(limits) {
    current.textContent = accountLimitsText(limits);
    const caps = limits.spend_cap_usd ?? {};
    const form = /** @type {HTMLFormElement} */ (h(
      'form',
      { class: 'grid-form', 'data-testid': 'account-limits-form' },
      h('label', {}, 'Cap/day $', h('input', { name: 'cap_day', inputmode: 'decimal', value: caps.day })),
      h('label', {}, 'Cap/week $', h('input', { name: 'cap_week', inputmode: 'decimal', value: caps.week })),
      h('label', {}, 'Cap/month $', h('input', { name: 'cap_month', inputmode: 'decimal', value: caps.month })),
      h('label', {}, 'Requests/min', h('input', { name: 'rpm', type: 'number', min: 0, value: limits.rpm })),
      h('label', {}, 'Tokens/min', h('input', { name: 'tpm', type: 'number', min: 0, value: limits.tpm })),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Save account limits')),
    ));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void attempt(async () => {
        const res = await api('PUT', `${path}/limits`, limitsFrom(formValues(form)));
        flash('Account limits saved.');
        show(res.data.limits);
      });
    });
    slot.replaceChildren(h('details', {}, h('summary', {}, 'Edit account limits'), form));
  }

  void attempt(async () => show((await api('GET', path)).data.limits ?? {}));
  return h('div', { class: 'account-limits' }, h('p', { class: 'muted' }, 'Across all keys of the account; empty fields remove that limit.'), current, slot);
}
