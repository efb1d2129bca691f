// Sibyl's page: finds out who is calling, then shows the sign-in, the first administrator's
// setup, or the signed-in views. Theme and language are remembered in this browser.

import { api, followLiveEvents, setCsrfToken } from './api.js';
import { preferredLanguage, setLanguage, t, translate } from './i18n.js';
import { renderSetup, renderSignIn } from './view-auth.js';
import { renderChat } from './view-chat.js';
import { renderDocuments } from './view-documents.js';
import { renderGlasses } from './view-glasses.js';
import { renderImages } from './view-images.js';
import { renderLogs } from './view-logs.js';
import { renderMemory } from './view-memory.js';
import { renderSettings } from './view-settings.js';

const main = document.getElementById('main');
const themes = ['system', 'light', 'dark', 'midnight', 'forest'];

/** Who is using the page: `{name, role, local}`, or null while signed out. */
let who = null;

function applyTheme(theme) {
  if (!themes.includes(theme)) theme = 'system';
  document.documentElement.dataset.theme = theme;
  localStorage.setItem('sibyl.theme', theme);
  document.getElementById('theme').value = theme;
  // Whether the page is dark now, for what follows the theme outside the style sheet (code colours).
  const dark = theme === 'dark' || theme === 'midnight' || (theme === 'system' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.scheme = dark ? 'dark' : 'light';
  const codeStyle = document.querySelector('link[href^="/vendor/highlight-"]');
  if (codeStyle) codeStyle.href = `/vendor/highlight-${dark ? 'dark' : 'light'}.css`;
}

/** Shows a short message at the bottom of the page. */
export function toast(text) {
  const box = document.getElementById('toast');
  box.textContent = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.textContent = ''; }, 5000);
}

/**
 * Shows a missing local engine installing itself on first use (the server's `install` events):
 * one card per component with its step and a progress bar, which says when it is done or why it
 * failed, then goes after a while.
 */
function followInstalls() {
  const box = document.getElementById('installs');
  window.addEventListener('sibyl:live', ({ detail: { type, data } }) => {
    if (type !== 'install' || !data.component) return;
    let card = box.querySelector(`[data-component="${CSS.escape(data.component)}"]`);
    if (!card) {
      card = document.createElement('section');
      card.className = 'install-card';
      card.dataset.component = data.component;
      card.setAttribute('aria-label', t('install.title', { component: data.component }));
      card.append(document.createElement('strong'), document.createElement('progress'), Object.assign(document.createElement('p'), { className: 'hint' }));
      box.append(card);
    }
    clearTimeout(card.timer);
    const [heading, bar, detail] = card.children;
    heading.textContent = t(`install.${data.state}`, { component: data.component });
    if (data.state === 'failed') {
      bar.hidden = true;
      detail.className = 'error';
      detail.textContent = data.problem ?? '';
    } else {
      bar.hidden = false;
      detail.className = 'hint';
      // Without a fraction the step's length is unknown: the bar moves without a value.
      if (typeof data.fraction === 'number') bar.value = data.fraction;
      else bar.removeAttribute('value');
      bar.setAttribute('aria-label', data.step || data.title);
      detail.textContent = [data.step, data.detail].filter(Boolean).join(' · ');
    }
    if (data.state !== 'running') card.timer = setTimeout(() => card.remove(), data.state === 'failed' ? 20000 : 6000);
  });
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

/** The signed-in pages, by the address's hash: `#/chat` (the start page), `#/chat/ID`. */
const views = [
  { name: 'chat', key: 'nav.chat' },
  { name: 'documents', key: 'nav.documents' },
  { name: 'memory', key: 'nav.memory' },
  { name: 'images', key: 'nav.images' },
  { name: 'glasses', key: 'nav.glasses' },
  { name: 'logs', key: 'nav.logs' },
  { name: 'settings', key: 'nav.settings' },
];

function showNav(current) {
  const nav = document.getElementById('nav');
  nav.hidden = who === null;
  nav.replaceChildren(...views.map((view) => {
    const link = document.createElement('a');
    link.href = `#/${view.name}`;
    link.dataset.i18n = view.key;
    link.textContent = t(view.key);
    if (view.name === current) link.setAttribute('aria-current', 'page');
    return link;
  }));
}

/** Shows the view the address names. */
function route() {
  if (!who) return;
  const [name, id] = location.hash.replace(/^#\/?/, '').split('/');
  const view = views.find((candidate) => candidate.name === name) ? name : 'chat';
  showNav(view);
  if (view === 'chat') renderChat({ show, who, id: id ? decodeURIComponent(id) : null, toast });
  else if (view === 'documents') renderDocuments({ show, toast });
  else if (view === 'memory') renderMemory({ show, toast, who });
  else if (view === 'images') renderImages({ show, toast });
  else if (view === 'glasses') renderGlasses({ show, toast });
  else if (view === 'logs') renderLogs({ show, toast });
  else if (view === 'settings') renderSettings({ show, who, toast });
}

function signedIn(session) {
  setCsrfToken(session.csrfToken);
  who = { name: session.account.name, role: session.account.role, local: false };
  showAccount();
  followLiveEvents(true);
  if (location.pathname !== '/') history.replaceState(null, '', '/');
  route();
}

function signedOut(message) {
  setCsrfToken(null);
  followLiveEvents(false);
  who = null;
  showAccount();
  showNav(null);
  renderSignIn({ onSignedIn: signedIn, message, show });
}

async function start() {
  applyTheme(localStorage.getItem('sibyl.theme') ?? 'system');
  await setLanguage(preferredLanguage());
  document.getElementById('language').value = document.documentElement.lang;
  document.getElementById('theme').addEventListener('change', (event) => applyTheme(event.target.value));
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(document.documentElement.dataset.theme));
  document.getElementById('language').addEventListener('change', async (event) => {
    await setLanguage(event.target.value);
    showAccount();
    route();
  });
  document.getElementById('sign-out').addEventListener('click', async () => {
    try {
      await api('/auth/session', { method: 'DELETE' });
      signedOut(t('auth.signedOut'));
    } catch (error) {
      toast(error.message);
    }
  });

  window.addEventListener('hashchange', route);
  if (location.pathname === '/setup') {
    const token = decodeURIComponent(location.hash.slice(1));
    renderSetup(token, { onSignedIn: signedIn, show });
    return;
  }
  try {
    // Asked in a way that is answered whoever calls (no failed request in the console).
    const status = await api('/auth/status');
    if (!status.accounts) {
      // An open server on loopback: the local user is everyone on this machine.
      who = { name: '', role: 'admin', local: true };
      showAccount();
      followLiveEvents(true);
      route();
    } else if (status.session) {
      signedIn(status.session);
    } else {
      signedOut();
    }
  } catch (error) {
    // Opened from the installed app's kept shell while the server is out of reach, say, which the message says plainly.
    show(Object.assign(document.createElement('p'), { className: 'error', role: 'alert', textContent: error.message }));
  }
}

followInstalls();
start();
// The installable app's service worker keeps the shell for opening without the network; browsers
// offer it only on HTTPS or this machine. Registered once the page has loaded, so it never delays it.
if ('serviceWorker' in navigator && window.isSecureContext) {
  window.addEventListener('load', () => navigator.serviceWorker.register('/sw.js').catch(() => {}));
}
