// @ts-check
import { accountHolderScreen } from './account.js';
import { api } from './api.js';
import { attempt, clearFlash, flash, formValues, h } from './dom.js';
import { accountScreen, accountsScreen, catalogScreen, usageScreen } from './operator.js';
import { webhooksScreen } from './webhooks.js';

/** @typedef {{ mode: 'operator' } | { mode: 'account', account_id: string, key_id: string, key_name?: string }} Session */

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const who = /** @type {HTMLElement} */ (document.getElementById('who'));
const signOut = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));

/** @type {Session | null} */
let session = null;

function signInScreen() {
  const form = /** @type {HTMLFormElement} */ (h(
    'form',
    { class: 'card sign-in', 'data-testid': 'sign-in-form' },
    h('h2', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'Operators: the operator token. Account holders: a management key (sk-fbx-…).'),
    h('label', {}, 'Token or key', h('input', { name: 'token', type: 'password', autocomplete: 'off', required: true })),
    h('button', { type: 'submit' }, 'Sign in'),
  ));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void attempt(async () => {
      await api('POST', '/console/session', { token: formValues(form).token });
      form.reset();
      clearFlash();
      await start();
    });
  });
  return form;
}

/** The operator's screens by location hash. */
function operatorRoute() {
  const hash = location.hash || '#accounts';
  const [name, arg] = hash.slice(1).split('/');
  nav.replaceChildren(
    ...[['accounts', 'Accounts'], ['catalog', 'Catalog'], ['usage', 'Usage']].map(([id, label]) =>
      h('a', { href: `#${id}`, class: name === id || ((name === 'account' || name === 'webhooks') && id === 'accounts') ? 'active' : '' }, label)),
  );
  if (name === 'account' && arg) return accountScreen(decodeURIComponent(arg));
  if (name === 'webhooks' && arg) return webhooksScreen(decodeURIComponent(arg));
  if (name === 'catalog') return catalogScreen();
  if (name === 'usage') return usageScreen();
  return accountsScreen();
}

function render() {
  if (!session) {
    nav.replaceChildren();
    who.textContent = '';
    signOut.hidden = true;
    main.replaceChildren(signInScreen());
    return;
  }
  signOut.hidden = false;
  if (session.mode === 'operator') {
    who.textContent = 'Operator';
    main.replaceChildren(operatorRoute());
  } else {
    nav.replaceChildren();
    who.textContent = `Account ${session.account_id}`;
    main.replaceChildren(accountHolderScreen(session));
  }
}

async function start() {
  try {
    session = (await api('GET', '/console/session')).data;
  } catch {
    session = null;
  }
  render();
}

signOut.addEventListener('click', () => void attempt(async () => {
  await api('DELETE', '/console/session');
  session = null;
  location.hash = '';
  flash('Signed out.');
  render();
}));
window.addEventListener('hashchange', () => {
  clearFlash();
  render();
});
void start();
