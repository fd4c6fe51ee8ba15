// @ts-check
/**
 * Creates an element. Attributes starting with "on" become listeners; text children are
 * text nodes (never HTML), so nothing from the API is ever parsed as markup.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * A table from column definitions and rows.
 * @template T
 * @param {{ title: string, cell: (row: T) => Node | string | number | null | undefined, className?: string }[]} columns
 * @param {T[]} rows
 * @param {{ testid?: string, empty?: string }} [options]
 */
export function table(columns, rows, options = {}) {
  const head = h('tr', {}, ...columns.map((c) => h('th', { class: c.className }, c.title)));
  const body = rows.length
    ? rows.map((row) => h('tr', {}, ...columns.map((c) => h('td', { class: c.className }, c.cell(row)))))
    : [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, options.empty ?? 'Nothing yet.'))];
  return h('table', { 'data-testid': options.testid }, h('thead', {}, head), h('tbody', {}, ...body));
}

/**
 * USD with enough decimals for sub-cent request costs.
 * @param {number | null | undefined} value
 */
export function usd(value) {
  if (value === null || value === undefined) return '—';
  const digits = Math.abs(value) >= 1 || value === 0 ? 2 : 6;
  return `$${value.toFixed(digits)}`;
}

/** @param {string} iso */
export function shortDate(iso) {
  return iso ? iso.replace('T', ' ').slice(0, 19) : '—';
}

/**
 * A titled card.
 * @param {string} title
 * @param {...(Node | string | null | undefined | false)} children
 */
export function card(title, ...children) {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

/**
 * Shows a message in the status line.
 * @param {string} message
 * @param {'ok' | 'error'} [kind]
 */
export function flash(message, kind = 'ok') {
  const el = /** @type {HTMLElement} */ (document.getElementById('flash'));
  el.textContent = message;
  el.className = `flash ${kind}`;
  el.hidden = false;
}

/** Hides the status line. */
export function clearFlash() {
  const el = document.getElementById('flash');
  if (el) el.hidden = true;
}

/**
 * Runs an action and reports its error in the status line instead of throwing.
 * @param {() => Promise<void>} action
 */
export async function attempt(action) {
  try {
    await action();
  } catch (err) {
    flash(err instanceof Error ? err.message : String(err), 'error');
  }
}

/**
 * Reads a form's named fields as strings.
 * @param {HTMLFormElement} form
 * @returns {Record<string, string>}
 */
export function formValues(form) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of new FormData(form).entries()) out[k] = String(v).trim();
  return out;
}
