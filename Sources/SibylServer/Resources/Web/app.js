// Sibyl's page: finds out who is calling, then shows the sign-in, the first administrator's
// setup, or the signed-in views. Theme and language are remembered in this browser.

import { api, ApiError, setCsrfToken } from './api.js';
import { preferredLanguage, setLanguage, t, translate } from './i18n.js';
import { renderSetup, renderSignIn } from './view-auth.js';

const main = document.getElementById('main');
const themes = ['system', 'light', 'dark', 'midnight', 'forest'];

/** Who is using the page: `{name, role, local}`, or null while signed out. */
let who = null;

function applyTheme(theme) {
  if (!themes.includes(theme)) theme = 'system';
  document.documentElement.dataset.theme = theme;
  localStorage.setItem('sibyl.theme', theme);
  document.getElementById('theme').value = theme;
}

/** Shows a short message at the bottom of the page. */
export function toast(text) {
  const box = document.getElementById('toast');
  box.textContent = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.textContent = ''; }, 5000);
}

/** Puts a view's elements in the page and moves the focus to it, for screen readers and keyboards. */
function show(...nodes) {
  main.replaceChildren(...nodes);
  translate(main);
  main.focus({ preventScroll: true });
}

function showAccount() {
  const box = document.getElementById('account');
  box.hidden = who === null;
  document.getElementById('account-name').textContent = who ? (who.local ? t('account.local') : who.name) : '';
  document.getElementById('sign-out').hidden = !who || who.local;
}

/** The signed-in start page: who you are and what this server holds for you. */
async function renderHome() {
  const heading = document.createElement('h1');
  heading.textContent = who.local ? t('home.titleLocal') : t('home.title', { name: who.name });
  const card = document.createElement('section');
  card.className = 'card';
  card.setAttribute('aria-labelledby', 'home-summary');
  const title = document.createElement('h2');
  title.id = 'home-summary';
  title.dataset.i18n = 'home.summary';
  const list = document.createElement('ul');
  card.append(title, list);
  show(heading, card);
  try {
    const [conversations, documents] = await Promise.all([api('/conversations?limit=1'), api('/documents')]);
    const items = [
      t('home.conversations', { count: conversations.total ?? 0 }),
      t('home.documents', { count: Array.isArray(documents) ? documents.length : 0 }),
      t(who.role === 'admin' || who.local ? 'home.roleAdmin' : 'home.roleUser'),
    ];
    list.replaceChildren(...items.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  } catch (error) {
    list.replaceChildren(Object.assign(document.createElement('li'), { className: 'error', textContent: error.message }));
  }
}

function signedIn(session) {
  setCsrfToken(session.csrfToken);
  who = { name: session.account.name, role: session.account.role, local: false };
  showAccount();
  if (location.pathname !== '/') history.replaceState(null, '', '/');
  renderHome();
}

function signedOut(message) {
  setCsrfToken(null);
  who = null;
  showAccount();
  renderSignIn({ onSignedIn: signedIn, message, show });
}

async function start() {
  applyTheme(localStorage.getItem('sibyl.theme') ?? 'system');
  await setLanguage(preferredLanguage());
  document.getElementById('language').value = document.documentElement.lang;
  document.getElementById('theme').addEventListener('change', (event) => applyTheme(event.target.value));
  document.getElementById('language').addEventListener('change', async (event) => {
    await setLanguage(event.target.value);
    showAccount();
    if (who) renderHome();
  });
  document.getElementById('sign-out').addEventListener('click', async () => {
    try {
      await api('/auth/session', { method: 'DELETE' });
      signedOut(t('auth.signedOut'));
    } catch (error) {
      toast(error.message);
    }
  });

  if (location.pathname === '/setup') {
    const token = decodeURIComponent(location.hash.slice(1));
    renderSetup(token, { onSignedIn: signedIn, show });
    return;
  }
  try {
    signedIn(await api('/auth/session'));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'accounts_off') {
      // An open server on loopback: the local user is everyone on this machine.
      who = { name: '', role: 'admin', local: true };
      showAccount();
      renderHome();
    } else if (error instanceof ApiError && error.status === 401) {
      signedOut();
    } else {
      show(Object.assign(document.createElement('p'), { className: 'error', textContent: error.message }));
    }
  }
}

start();
