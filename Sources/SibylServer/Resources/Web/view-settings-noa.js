// The Settings card that sets up Brilliant's Noa phone app (Frame glasses) with this server: its
// Custom Server fields, a read-only token, a QR code of the address, and what its answers do.

import { api } from './api.js';
import { field, h } from './dom.js';
import { formatDate, t, translate } from './i18n.js';

// The Noa app's own labels for its Custom Server fields, shown as the app shows them (in English).
const NOA_FIELDS = { endpoint: 'API Endpoint', headerKey: 'API Header Key', headerValue: 'API Header Value' };
const NOA_TOKEN_LABEL = 'Noa app';
/** The server's settings behind the card's controls, by their API path. */
const NOA_SETTINGS = {
  documents: '/settings/glasses.documents', speech: '/settings/glasses.spoken_answers', translateTo: '/settings/glasses.translate_to', language: '/settings/glasses.language',
  persona: '/settings/glasses.persona', voice: '/settings/glasses.voice',
};

/** Loads Debian's qrcode-generator once, when a QR code is first drawn; resolves false without it. */
let qrLibrary = null;
function loadQrCodes() {
  qrLibrary ??= new Promise((resolve) => {
    if (typeof window.qrcode === 'function') return resolve(true);
    const script = h('script', { src: '/vendor/qrcode.js' });
    script.addEventListener('load', () => resolve(typeof window.qrcode === 'function'));
    script.addEventListener('error', () => resolve(false));
    document.head.append(script);
  });
  return qrLibrary;
}

/** A QR code of `text` as SVG: black modules on white inside a four-module quiet zone, in every theme (scanners want that). */
function qrCode(text) {
  const code = window.qrcode(0, 'M');
  code.addData(text);
  code.make();
  const count = code.getModuleCount();
  const size = count + 8;
  let path = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) if (code.isDark(row, col)) path += `M${col + 4} ${row + 4}h1v1h-1z`;
  }
  const svg = (tag, attributes) => {
    const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
    return element;
  };
  const image = svg('svg', { class: 'qr', viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': t('settings.noa.qrLabel', { url: text }), 'shape-rendering': 'crispEdges' });
  image.append(svg('rect', { width: size, height: size, fill: '#fff' }), svg('path', { d: path, fill: '#000' }));
  return image;
}

const isOn = (setting) => ['true', '1', 'yes', 'on'].includes(String(setting?.value ?? setting?.defaultValue ?? '').toLowerCase());

/**
 * The card that sets up Brilliant's Noa app (Frame glasses) with this server in under a minute:
 * what to type into each of its Custom Server fields, a read-only token for it, a QR code of the
 * address, and what its answers do (the server's `glasses.*` settings).
 * @param {{toast: Function, admin: boolean}} page
 */
export function noaCard({ toast, admin }) {
  const body = h('div', { class: 'stack' }, h('p', { class: 'hint' }, t('settings.noa.loading')));
  const error = h('p', { class: 'error', role: 'alert' });
  // The settings are the server's: administrators change them, everyone sees them.
  const documents = h('input', { id: 'noa-documents', type: 'checkbox', disabled: !admin });
  const speech = h('input', { id: 'noa-speech', type: 'checkbox', disabled: !admin });
  const language = h('input', { id: 'noa-language', type: 'text', autocomplete: 'off', disabled: !admin, maxlength: '8', size: '8', i18nPlaceholder: 'settings.noa.languageExample' });
  const translateTo = h('input', { id: 'noa-translate', type: 'text', autocomplete: 'off', disabled: !admin, i18nPlaceholder: 'settings.noa.translateExample' });
  // The persona the glasses' questions are answered with, and the voice their spoken answers use.
  const persona = h('select', { id: 'noa-persona', disabled: !admin });
  const voice = h('select', { id: 'noa-voice', disabled: !admin }, h('option', { value: '' }, t('settings.noa.voiceDefault')));
  let savedPersona = '';
  let savedVoice = '';
  persona.addEventListener('change', async () => {
    if (await store(NOA_SETTINGS.persona, persona.value, () => { persona.value = savedPersona; })) savedPersona = persona.value;
  });
  voice.addEventListener('change', async () => {
    if (await store(NOA_SETTINGS.voice, voice.value, () => { voice.value = savedVoice; })) savedVoice = voice.value;
  });
  const tokenList = h('ul', { class: 'plain-list' });
  const tokenBox = h('div', { class: 'stack', hidden: true }, h('h3', { i18n: 'settings.noa.tokens' }), tokenList);

  /** Saves one of the app's settings (empty text: back to the default); resolves whether it was saved. */
  async function store(path, value, undo) {
    error.textContent = '';
    try {
      if (value === '') await api(path, { method: 'DELETE' });
      else await api(path, { method: 'PUT', body: { value } });
      toast(t('settings.saved'));
      return true;
    } catch (failure) {
      error.textContent = failure.message;
      undo();
      return false;
    }
  }
  documents.addEventListener('change', () => store(NOA_SETTINGS.documents, documents.checked ? 'on' : 'off', () => { documents.checked = !documents.checked; }));
  speech.addEventListener('change', () => store(NOA_SETTINGS.speech, speech.checked ? 'on' : 'off', () => { speech.checked = !speech.checked; }));
  let savedLanguage = '';
  let savedSpoken = '';
  language.addEventListener('change', async () => {
    const value = language.value.trim().toLowerCase();
    if (await store(NOA_SETTINGS.language, value, () => { language.value = savedSpoken; })) {
      savedSpoken = value;
      language.value = value;
    }
  });
  translateTo.addEventListener('change', async () => {
    const value = translateTo.value.trim();
    if (await store(NOA_SETTINGS.translateTo, value, () => { translateTo.value = savedLanguage; })) savedLanguage = value;
  });

  /** A button that copies what to type into the app's field `name`. */
  function copyButton(name, value) {
    return h('button', { type: 'button', class: 'quiet small', 'aria-label': t('settings.noa.copyLabel', { name }), onclick: async () => {
      try {
        await navigator.clipboard.writeText(value());
        toast(t('settings.noa.copied', { name }));
      } catch {
        toast(t('settings.noa.copyFailed'));
      }
    } }, t('settings.noa.copy'));
  }
  /** A value to type into the app, with its copy button. */
  const copyable = (name, value, id) => [h('code', { id }, value), copyButton(name, () => value)];

  async function loadTokens() {
    try {
      const tokens = (await api('/auth/tokens')).filter((token) => token.label === NOA_TOKEN_LABEL);
      tokenBox.hidden = tokens.length === 0;
      tokenList.replaceChildren(...tokens.map((token) => h('li', { class: 'row' },
        h('code', {}, `${token.prefix}…`), h('span', { class: 'hint' }, t('settings.noa.made', { date: formatDate(token.createdAt) })),
        h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('settings.noa.revokeLabel', { prefix: token.prefix }), onclick: async () => {
          try {
            await api(`/auth/tokens/${encodeURIComponent(token.id)}`, { method: 'DELETE' });
            toast(t('settings.noa.revoked'));
            loadTokens();
          } catch (failure) {
            error.textContent = failure.message;
          }
        } }, t('settings.noa.revoke')))));
      translate(tokenBox);
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  async function load() {
    let setup;
    try {
      setup = await api('/noa/setup');
    } catch (failure) {
      body.replaceChildren();
      error.textContent = failure.message;
      return;
    }
    const endpoints = setup.endpoints ?? [];
    let endpoint = endpoints[0] ?? '';
    const qrBox = h('figure', { class: 'qr-box', hidden: !endpoint });
    async function drawQr() {
      if (!endpoint) return;
      if (!(await loadQrCodes())) {
        qrBox.replaceChildren(h('p', { class: 'hint' }, t('settings.noa.noQr')));
        return;
      }
      qrBox.replaceChildren(qrCode(endpoint), h('figcaption', { class: 'hint' }, t('settings.noa.qrHint')));
    }

    // API Endpoint: the best address, or a choice when the machine has several.
    let endpointValue;
    if (endpoints.length > 1) {
      const select = h('select', { id: 'noa-endpoint', 'aria-labelledby': 'noa-endpoint-name' }, endpoints.map((url) => h('option', { value: url }, url)));
      select.addEventListener('change', () => { endpoint = select.value; drawQr(); });
      endpointValue = [select, copyButton(NOA_FIELDS.endpoint, () => endpoint)];
    } else if (endpoint) {
      endpointValue = copyable(NOA_FIELDS.endpoint, endpoint, 'noa-endpoint');
    } else {
      endpointValue = h('span', { class: 'hint' }, t('settings.noa.noEndpoint'));
    }
    const headerValue = h('dd', {});
    const rows = [h('dt', { id: 'noa-endpoint-name' }, NOA_FIELDS.endpoint), h('dd', {}, endpointValue)];
    if (setup.tokenRequired) {
      const make = h('button', { type: 'button', onclick: async () => {
        error.textContent = '';
        make.disabled = true;
        try {
          const issued = await api('/auth/tokens', { method: 'POST', body: { label: NOA_TOKEN_LABEL, readOnly: true } });
          headerValue.replaceChildren(...copyable(NOA_FIELDS.headerValue, `Bearer ${issued.secret}`, 'noa-header-value'),
            h('p', { class: 'hint', role: 'status' }, t('settings.noa.tokenOnce')));
          loadTokens();
        } catch (failure) {
          error.textContent = failure.message;
          make.disabled = false;
        }
      } }, t('settings.noa.makeToken'));
      headerValue.append(make, h('p', { class: 'hint' }, t('settings.noa.tokenHint')));
      rows.push(h('dt', {}, NOA_FIELDS.headerKey), h('dd', {}, copyable(NOA_FIELDS.headerKey, setup.headerName, 'noa-header-key')),
        h('dt', {}, NOA_FIELDS.headerValue), headerValue);
      loadTokens();
    }
    body.replaceChildren(...[
      setup.loopbackOnly ? h('div', { class: 'notice-box' },
        h('p', {}, t('settings.noa.loopback')), h('p', {}, h('code', {}, 'sibyl serve --host 0.0.0.0'))) : null,
      h('p', {}, t('settings.noa.fill')),
      h('div', { class: 'noa-setup' },
        h('div', { class: 'stack' }, h('dl', { class: 'stats noa-values' }, rows),
          setup.tokenRequired ? null : h('p', { class: 'hint' }, t('settings.noa.noHeader'))),
        qrBox)].filter(Boolean));
    drawQr();
  }

  async function loadSettings() {
    try {
      const settings = Object.fromEntries((await api('/settings')).map((setting) => [`/settings/${setting.key}`, setting]));
      documents.checked = isOn(settings[NOA_SETTINGS.documents]);
      speech.checked = isOn(settings[NOA_SETTINGS.speech]);
      savedLanguage = settings[NOA_SETTINGS.translateTo]?.value ?? '';
      translateTo.value = savedLanguage;
      savedSpoken = settings[NOA_SETTINGS.language]?.value ?? '';
      language.value = savedSpoken;
      const [personas, voices] = await Promise.all([api('/personas'), api('/voices').catch(() => [])]);
      persona.replaceChildren(...personas.map((p) => h('option', { value: p.name }, p.summary ? `${p.name} · ${p.summary}` : p.name)));
      savedPersona = settings[NOA_SETTINGS.persona]?.value ?? settings[NOA_SETTINGS.persona]?.defaultValue ?? 'concise';
      persona.value = savedPersona;
      voice.append(...voices.map((v) => h('option', { value: v.id }, v.name)));
      savedVoice = settings[NOA_SETTINGS.voice]?.value ?? '';
      voice.value = voices.some((v) => v.id === savedVoice) ? savedVoice : '';
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  load();
  loadSettings();
  return h('section', { class: 'card', id: 'noa', 'aria-labelledby': 'noa-title' },
    h('h2', { id: 'noa-title', i18n: 'settings.noa.title' }),
    h('p', { i18n: 'settings.noa.intro' }),
    body, tokenBox,
    h('h3', { i18n: 'settings.noa.answers' }),
    admin ? null : h('p', { class: 'hint', i18n: 'settings.noa.adminOnly' }),
    h('div', { class: 'stack' },
      h('label', { class: 'switch', htmlFor: 'noa-documents' }, documents, h('span', { i18n: 'settings.noa.documents' })),
      h('label', { class: 'switch', htmlFor: 'noa-speech' }, speech, h('span', { i18n: 'settings.noa.speech' })),
      field('settings.noa.persona', persona, 'settings.noa.personaHint'),
      field('settings.noa.voice', voice),
      field('settings.noa.language', language, 'settings.noa.languageHint'),
      field('settings.noa.translate', translateTo, 'settings.noa.translateHint')),
    error);
}
