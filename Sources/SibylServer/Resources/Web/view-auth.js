// Signing in, and making the first administrator with the one-time link `sibyl serve` printed.

import { api, ApiError } from './api.js';
import { t } from './i18n.js';

/** A labelled input, with a hint below it that screen readers read as its description. */
function field(labelKey, input, hintKey) {
  const box = document.createElement('div');
  box.className = 'field';
  const label = document.createElement('label');
  label.htmlFor = input.id;
  label.dataset.i18n = labelKey;
  box.append(label, input);
  if (hintKey) {
    const hint = document.createElement('p');
    hint.className = 'hint';
    hint.dataset.i18n = hintKey;
    hint.id = `${input.id}-hint`;
    input.setAttribute('aria-describedby', hint.id);
    box.append(hint);
  }
  return box;
}

function input(id, type, autocomplete) {
  const element = document.createElement('input');
  Object.assign(element, { id, name: id, type, autocomplete, required: true });
  return element;
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
  const card = document.createElement('section');
  card.className = 'card auth-card';
  card.setAttribute('aria-labelledby', 'auth-title');
  const heading = document.createElement('h1');
  heading.id = 'auth-title';
  heading.dataset.i18n = titleKey;
  const intro = document.createElement('p');
  intro.className = 'hint';
  intro.dataset.i18n = introKey;
  const form = document.createElement('form');
  form.noValidate = false;
  const error = document.createElement('p');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  const button = document.createElement('button');
  button.type = 'submit';
  button.dataset.i18n = buttonKey;
  form.append(...fields, error, button);
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
  card.append(heading, intro, form);
  return card;
}

/** The sign-in form. */
export function renderSignIn({ onSignedIn, message, show }) {
  const card = authCard('auth.title', 'auth.intro', [
    field('auth.name', input('name', 'text', 'username')),
    field('auth.password', input('password', 'password', 'current-password')),
  ], 'auth.signIn', async (form) => {
    onSignedIn(await api('/auth/session', { method: 'POST', body: { name: form.get('name'), password: form.get('password') } }));
  });
  if (message) {
    const note = document.createElement('p');
    note.className = 'hint';
    note.setAttribute('role', 'status');
    note.textContent = message;
    card.prepend(note);
  }
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
