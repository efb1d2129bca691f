// Signing in, and making the first administrator with the one-time link `sibyl serve` printed.

import { api, ApiError } from './api.js';
import { field, h } from './dom.js';
import { t } from './i18n.js';

function input(id, type, autocomplete) {
  return h('input', { id, name: id, type, autocomplete, required: true });
}

/** The words for a failed sign-in or setup, in the page's language where Sibyl knows the case. */
function explain(error) {
  if (!(error instanceof ApiError)) return error.message;
  switch (error.code) {
    case 'unauthorized': return t('auth.wrong');
    case 'throttled': return t('auth.throttled');
    case 'setup_closed': return t('setup.closed');
    case 'weak_password': return t('auth.weakPassword');
    case 'invalid_name': return t('auth.invalidName');
    case 'conflict': return t('auth.nameTaken');
    case 'unreachable': return t('error.unreachable');
    default: return error.message;
  }
}

/** A card with a heading, a form and an error line; `submit` gets the form's values. */
function authCard(titleKey, introKey, fields, buttonKey, submit) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', i18n: buttonKey });
  const form = h('form', {}, fields, error, button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (failure) {
      error.textContent = explain(failure);
    } finally {
      button.disabled = false;
    }
  });
  return h('section', { class: 'card auth-card', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title', i18n: titleKey }), h('p', { class: 'hint', i18n: introKey }), form);
}

/** The sign-in form. */
export function renderSignIn({ onSignedIn, message, show }) {
  const card = authCard('auth.title', 'auth.intro', [
    field('auth.name', input('name', 'text', 'username')),
    field('auth.password', input('password', 'password', 'current-password')),
  ], 'auth.signIn', async (form) => {
    onSignedIn(await api('/auth/session', { method: 'POST', body: { name: form.get('name'), password: form.get('password') } }));
  });
  if (message) card.prepend(h('p', { class: 'hint', role: 'status' }, message));
  show(card);
  card.querySelector('input').focus();
}

/** The first administrator's form, opened from the link with the one-time token after `#`. */
export function renderSetup(token, { onSignedIn, show }) {
  const password = input('password', 'password', 'new-password');
  password.minLength = 8;
  const repeat = input('repeat', 'password', 'new-password');
  const card = authCard('setup.title', 'setup.intro', [
    field('auth.name', input('name', 'text', 'username'), 'setup.nameHint'),
    field('auth.password', password, 'setup.passwordHint'),
    field('setup.repeat', repeat),
  ], 'setup.create', async (form) => {
    if (!token) throw new Error(t('setup.noToken'));
    if (form.get('password') !== form.get('repeat')) throw new Error(t('setup.mismatch'));
    onSignedIn(await api('/auth/setup', { method: 'POST', body: { token, name: form.get('name'), password: form.get('password') } }));
  });
  show(card);
  card.querySelector('input').focus();
}
