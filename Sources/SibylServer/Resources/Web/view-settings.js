// Settings: connect a provider (a key, and for administrators a base URL) and see plainly what
// works; keys (write-only: only their last characters are ever shown); which engine serves each
// capability; the local models, installed with progress; personas; setting up Brilliant's Noa
// phone app (view-settings-noa.js); where documents' vectors are searched (view-settings-pinecone.js);
// tools from the user's MCP servers (view-settings-tools.js).

import { api, onLiveEvent, serverEvents } from './api.js';
import { field, h, OCR_LANGUAGES } from './dom.js';
import { formatNumber, t, tn, translate } from './i18n.js';
import { noaCard } from './view-settings-noa.js';
import { vectorStoreCard } from './view-settings-pinecone.js';
import { toolsCard } from './view-settings-tools.js';

const CAPABILITIES = ['chat', 'embeddings', 'stt', 'tts', 'images'];
const STATES = ['available', 'present', 'unavailable', 'unauthorized', 'unreachable', 'failed'];

/**
 * Shows the settings page.
 * @param {{show: Function, who: any, toast: Function}} page
 */
export async function renderSettings({ show, who, toast }) {
  const admin = who.local || who.role === 'admin';

  // Connect: a key (and a base URL) checked with the provider probe.
  const keyInput = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', i18nPlaceholder: 'settings.keyExample' });
  const baseInput = h('input', { id: 'base-url', type: 'url', i18nPlaceholder: 'settings.baseExample' });
  // Pinecone's key, for documents' vectors in a Pinecone index (the vector store card).
  const pineconeInput = h('input', { id: 'pinecone-key', type: 'password', autocomplete: 'off', spellcheck: 'false', i18nPlaceholder: 'settings.pinecone.keyExample' });
  const vectors = admin ? vectorStoreCard({ toast }) : null;
  const shared = h('input', { id: 'key-shared', type: 'checkbox', checked: admin && !who.local });
  const connectError = h('p', { class: 'error', role: 'alert' });
  const connect = h('form', { class: 'stack', onsubmit: (event) => { event.preventDefault(); save(); } },
    field('settings.key', keyInput, 'settings.keyHint'),
    admin ? field('settings.baseUrl', baseInput, 'settings.baseHint') : null,
    admin ? field('settings.pinecone.key', pineconeInput, 'settings.pinecone.keyHint') : null,
    admin && !who.local ? h('label', { class: 'switch', htmlFor: 'key-shared' }, shared, h('span', { i18n: 'settings.keyForEveryone' })) : null,
    connectError,
    h('div', { class: 'row' }, h('button', { type: 'submit', i18n: 'settings.saveAndCheck' }), h('button', { type: 'button', class: 'quiet', i18n: 'settings.checkOnly', onclick: check })));

  // What works.
  const checkBody = h('tbody');
  const checkSummary = h('p', { class: 'summary', role: 'status' });
  // Keys.
  const keyList = h('ul', { class: 'plain-list' });
  // Providers per capability (administrators).
  const providerRows = h('div', { class: 'stack' });
  // Models.
  const modelBody = h('tbody');
  // Whether a missing engine installs itself the first time it is needed (models.auto_install).
  const autoInstall = h('input', { id: 'auto-install', type: 'checkbox' });
  autoInstall.addEventListener('change', async () => {
    try {
      await api('/settings/models.auto_install', { method: 'PUT', body: { value: autoInstall.checked ? 'on' : 'off' } });
      toast(t('settings.saved'));
    } catch (error) {
      autoInstall.checked = !autoInstall.checked;
      toast(error.message);
    }
  });
  // Personas.
  const personaList = h('ul', { class: 'plain-list' });
  const personaName = h('input', { id: 'persona-name', type: 'text', required: true, pattern: '[a-z0-9][a-z0-9-]*' });
  const personaSummary = h('input', { id: 'persona-summary', type: 'text' });
  const personaPrompt = h('textarea', { id: 'persona-prompt', rows: '4', required: true });
  const personaModel = h('input', { id: 'persona-model', type: 'text' });
  // A persona's sampling: each field is the API's name for it; empty leaves it to the settings.
  const sampling = {
    temperature: { min: '0', max: '2', step: '0.05', label: 'settings.personaTemperature', hint: 'settings.personaTemperatureHint' },
    maxTokens: { min: '1', step: '1', label: 'settings.personaMaxTokens', hint: 'settings.personaMaxTokensHint' },
    topP: { min: '0', max: '1', step: '0.05', label: 'settings.personaTopP', hint: 'settings.personaTopPHint' },
    presencePenalty: { min: '-2', max: '2', step: '0.1', label: 'settings.personaPresence', hint: 'settings.personaPresenceHint' },
    frequencyPenalty: { min: '-2', max: '2', step: '0.1', label: 'settings.personaFrequency', hint: 'settings.personaFrequencyHint' },
  };
  for (const [name, spec] of Object.entries(sampling)) {
    const id = `persona-${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    spec.input = h('input', { id, type: 'number', min: spec.min, max: spec.max, step: spec.step, inputmode: name === 'maxTokens' ? 'numeric' : 'decimal' });
  }
  const personaForm = h('form', { class: 'stack', onsubmit: (event) => { event.preventDefault(); savePersona(); } },
    field('settings.personaName', personaName, 'settings.personaNameHint'),
    field('settings.personaSummary', personaSummary),
    field('settings.personaPrompt', personaPrompt),
    field('settings.personaModel', personaModel, 'settings.personaModelHint'),
    h('fieldset', { class: 'sampling' }, h('legend', { i18n: 'settings.personaSampling' }),
      ...Object.values(sampling).map((spec) => field(spec.label, spec.input, spec.hint))),
    h('div', { class: 'row' }, h('button', { type: 'submit', i18n: 'settings.personaSave' })));

  show(
    h('h1', { i18n: 'settings.title' }),
    h('section', { class: 'card', 'aria-labelledby': 'connect-title' },
      h('h2', { id: 'connect-title', i18n: 'settings.connect' }),
      h('p', { i18n: 'settings.offline' }), connect),
    h('section', { class: 'card', 'aria-labelledby': 'works-title' },
      h('h2', { id: 'works-title', i18n: 'settings.works' }), checkSummary,
      h('div', { class: 'table-scroll' }, h('table', {},
        h('thead', {}, h('tr', {}, ...['settings.capability', 'settings.using', 'settings.model', 'settings.keySource', 'settings.state'].map((key) => h('th', { scope: 'col', i18n: key })))),
        checkBody))),
    h('section', { class: 'card', 'aria-labelledby': 'keys-title' }, h('h2', { id: 'keys-title', i18n: 'settings.keys' }), keyList),
    noaCard({ toast, admin }),
    vectors?.card,
    admin ? h('section', { class: 'card', 'aria-labelledby': 'providers-title' },
      h('h2', { id: 'providers-title', i18n: 'settings.providers' }), h('p', { class: 'hint', i18n: 'settings.providersHint' }), providerRows) : null,
    toolsCard({ toast, admin }),
    h('section', { class: 'card', 'aria-labelledby': 'models-title' },
      h('h2', { id: 'models-title', i18n: 'settings.models' }),
      h('div', { class: 'table-scroll' }, h('table', {},
        h('thead', {}, h('tr', {}, ...['settings.component', 'settings.installed', 'settings.onDisk', 'settings.actions'].map((key) => h('th', { scope: 'col', i18n: key })))),
        modelBody)),
      admin ? h('label', { class: 'switch', htmlFor: 'auto-install' }, autoInstall, h('span', { i18n: 'settings.autoInstall' })) : null),
    h('section', { class: 'card', 'aria-labelledby': 'personas-title' },
      h('h2', { id: 'personas-title', i18n: 'settings.personas' }), personaList, h('h3', { i18n: 'settings.personaNew' }), personaForm));

  async function save() {
    connectError.textContent = '';
    try {
      const key = keyInput.value.trim();
      if (key) {
        const scope = shared.checked ? 'shared' : 'own';
        await api(`/keys/openai?scope=${scope}`, { method: 'PUT', body: { key } });
        keyInput.value = '';
      }
      const base = baseInput.value.trim();
      if (admin && base) await api('/settings/base_url', { method: 'PUT', body: { value: base } });
      const pinecone = pineconeInput.value.trim();
      if (admin && pinecone) {
        await api(`/keys/pinecone?scope=${shared.checked ? 'shared' : 'own'}`, { method: 'PUT', body: { key: pinecone } });
        pineconeInput.value = '';
        vectors.reload();
      }
      toast(t('settings.saved'));
      await Promise.all([loadKeys(), check()]);
    } catch (error) {
      connectError.textContent = error.message;
    }
  }

  // Only the newest check may fill the table: an older one may have run while a key was being saved.
  let checks = 0;
  async function check() {
    const mine = ++checks;
    checkSummary.textContent = t('settings.checking');
    checkBody.replaceChildren();
    try {
      const rows = await api('/providers/check');
      if (mine !== checks) return;
      checkBody.replaceChildren(...rows.map((row) => h('tr', { 'data-state': row.state },
        h('th', { scope: 'row' }, row.capability),
        h('td', {}, row.using === 'local' ? t('settings.local') : t('settings.remote', { url: row.baseUrl })),
        h('td', {}, row.model || '—'),
        h('td', {}, row.key),
        h('td', { class: `state ${row.state}` }, STATES.includes(row.state) ? t(`settings.state.${row.state}`) : row.state,
          row.detail ? h('small', {}, ` · ${row.detail}`) : null))));
      const working = rows.filter((row) => row.state === 'available' || row.state === 'present');
      const broken = rows.filter((row) => !(row.state === 'available' || row.state === 'present'));
      checkSummary.textContent = broken.length === 0
        ? t('settings.allWork')
        : t('settings.someWork', { working: [...new Set(working.map((r) => r.capability))].join(', ') || '—', broken: [...new Set(broken.map((r) => r.capability))].join(', ') });
    } catch (error) {
      if (mine === checks) checkSummary.textContent = error.message;
    }
  }

  async function loadKeys() {
    try {
      const keys = await api('/keys');
      keyList.replaceChildren(...(keys.length ? keys.map((key) => {
        const removable = key.scope === 'own' || (key.scope === 'shared' && admin);
        return h('li', { class: 'row' },
          h('strong', {}, key.name), h('span', {}, t(`settings.scope.${key.scope}`)), h('code', {}, key.masked),
          removable ? h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('settings.removeKey', { name: key.name }), onclick: async () => {
            try {
              await api(`/keys/${encodeURIComponent(key.name)}?scope=${key.scope}`, { method: 'DELETE' });
              loadKeys();
            } catch (error) {
              toast(error.message);
            }
          } }, t('docs.remove')) : null);
      }) : [h('li', { class: 'hint', i18n: 'settings.noKeys' })]));
      translate(keyList);
    } catch (error) {
      keyList.replaceChildren(h('li', { class: 'error' }, error.message));
    }
  }

  async function loadProviders() {
    if (!admin) return;
    try {
      const settings = await api('/settings');
      const byKey = Object.fromEntries(settings.map((s) => [s.key, s]));
      providerRows.replaceChildren(...CAPABILITIES.filter((c) => byKey[`${c}.provider`]).map((capability) => {
        const setting = byKey[`${capability}.provider`];
        const select = h('select', { id: `provider-${capability}` }, setting.choices.map((choice) => h('option', { value: choice }, t(`settings.provider.${choice}`))));
        select.value = setting.value ?? setting.defaultValue ?? 'auto';
        select.addEventListener('change', async () => {
          try {
            await api(`/settings/${capability}.provider`, { method: 'PUT', body: { value: select.value } });
            toast(t('settings.saved'));
            check();
          } catch (error) {
            toast(error.message);
          }
        });
        return h('div', { class: 'compact-field' }, h('label', { htmlFor: `provider-${capability}` }, t(`settings.capability.${capability}`)), select);
      }), await chatModelPicker(byKey), await embeddingPicker(), await voicePicker(byKey['tts.voice']), ocrPicker(byKey[`docs.ocr_languages`]));
    } catch (error) {
      providerRows.replaceChildren(h('p', { class: 'error' }, error.message));
    }
  }

  /** The chat model answers use unless a conversation or persona picks one (chat.model, or chat.local_model on this machine). */
  async function chatModelPicker(byKey) {
    let choices;
    try {
      choices = await api('/chat/models');
    } catch {
      return '';
    }
    // Only the models of the provider answers come from now: the local ones when it is this machine.
    const local = byKey[`chat.provider`]?.value === 'local' || choices.models.every((choice) => choice.local);
    const offered = choices.models.filter((choice) => choice.local === local);
    if (!offered.length) return '';
    const select = h('select', { id: 'chat-model-default' }, ...offered.map((choice) => h('option', { value: choice.id }, choice.id)));
    if (choices.current && !offered.some((choice) => choice.id === choices.current)) select.prepend(h('option', { value: choices.current }, choices.current));
    select.value = choices.current ?? offered[0].id;
    select.addEventListener('change', async () => {
      const choice = offered.find((candidate) => candidate.id === select.value);
      if (!choice) return;
      try {
        await api(`/settings/${choice.setting}`, { method: 'PUT', body: { value: choice.value } });
        toast(t('settings.saved'));
      } catch (error) {
        toast(error.message);
      }
    });
    return h('div', { class: 'compact-field' }, h('label', { htmlFor: 'chat-model-default' }, t('settings.chatModel')), select);
  }

  /**
   * The model documents are embedded with. A change means every document is embedded again: the
   * page says how many first, and once confirmed re-embeds each collection with a progress bar.
   */
  async function embeddingPicker() {
    let choices;
    try {
      choices = await api('/embeddings/models');
    } catch {
      return '';
    }
    const select = h('select', { id: 'embedding-model' }, ...choices.models.map((choice) =>
      h('option', { value: choice.id }, choice.local ? t('settings.embeddingLocal', { model: choice.id }) : choice.id)));
    select.value = choices.current;
    let current = choices.current;
    const notice = h('div', { class: 'stack reembed', hidden: true, role: 'status' });
    select.addEventListener('change', async () => {
      const wanted = choices.models.find((choice) => choice.id === select.value);
      if (!wanted) return;
      let collections = [];
      try {
        collections = (await api('/collections')).filter((c) => c.documents > 0);
      } catch (error) {
        toast(error.message);
      }
      const documents = collections.reduce((sum, c) => sum + c.documents, 0);
      const cancel = () => {
        select.value = current;
        notice.hidden = true;
      };
      const apply = async () => {
        notice.replaceChildren(h('p', {}, t('settings.reembedding')));
        try {
          if (wanted.local) {
            await api('/settings/embeddings.local_model', { method: 'PUT', body: { value: wanted.id } });
            await api('/settings/embeddings.provider', { method: 'PUT', body: { value: 'local' } });
          } else {
            await api('/settings/embeddings.provider', { method: 'PUT', body: { value: 'remote' } });
            await api('/settings/embeddings.model', { method: 'PUT', body: { value: wanted.id } });
          }
          current = wanted.id;
          for (const c of collections) await reembed(c);
          notice.append(h('p', {}, documents ? t('settings.reembedded', { documents: tn('docs.documentCount', documents), model: wanted.id }) : t('settings.saved')));
        } catch (error) {
          notice.append(h('p', { class: 'error', role: 'alert' }, error.message));
        }
      };
      notice.hidden = false;
      if (!documents) {
        await apply();
        return;
      }
      notice.replaceChildren(
        h('p', { class: 'warning' }, t('settings.reembedWarning', { documents: tn('docs.documentCount', documents), model: wanted.id })),
        h('div', { class: 'row' },
          h('button', { type: 'button', onclick: apply }, t('settings.reembedConfirm')),
          h('button', { type: 'button', class: 'quiet', onclick: cancel }, t('docs.cancel'))));
    });

    /** Re-embeds one collection, its documents counted on a bar as they are done. */
    async function reembed(collection) {
      const bar = h('progress', { max: '1', value: '0', 'aria-label': t('settings.reembedCollection', { name: collection.collection }) });
      const line = h('p', { class: 'hint' }, t('settings.reembedCollection', { name: collection.collection }));
      notice.append(line, bar);
      const response = await api('/documents/reindex', { method: 'POST', body: { collection: collection.collection, stream: true }, raw: true });
      for await (const { type, data } of serverEvents(response)) {
        if (type === 'progress' && data.total) {
          bar.value = data.done / data.total;
          line.textContent = `${t('settings.reembedCollection', { name: collection.collection })} · ${data.done} / ${data.total}`;
        } else if (type === 'error') {
          throw new Error(data.message ?? data.error?.message ?? '');
        } else if (type === 'done') {
          bar.value = 1;
        }
      }
    }

    return h('div', { class: 'stack' }, h('div', { class: 'compact-field' }, h('label', { htmlFor: 'embedding-model' }, t('settings.embeddingModel')), select), notice);
  }

  /** The languages scans and images are read in when an upload names none (docs.ocr_languages). */
  function ocrPicker(setting) {
    if (!setting) return '';
    const current = setting.value ?? setting.defaultValue ?? 'eng';
    const choices = OCR_LANGUAGES.includes(current) ? OCR_LANGUAGES : [...OCR_LANGUAGES, current];
    const select = h('select', { id: 'ocr-default' }, ...choices.map((value) => h('option', { value }, OCR_LANGUAGES.includes(value) ? t(`ocr.${value}`) : value)));
    select.value = current;
    select.addEventListener('change', async () => {
      try {
        await api('/settings/docs.ocr_languages', { method: 'PUT', body: { value: select.value } });
        toast(t('settings.saved'));
      } catch (error) {
        toast(error.message);
      }
    });
    return h('div', { class: 'compact-field' }, h('label', { htmlFor: 'ocr-default' }, t('settings.ocrLanguages')), select);
  }

  /** The voice answers are spoken with (tts.voice), from the voices the server has. */
  async function voicePicker(setting) {
    if (!setting) return '';
    const voices = await api('/voices');
    const select = h('select', { id: 'tts-voice' },
      h('option', { value: '' }, t('settings.voiceDefault')),
      ...voices.map((voice) => h('option', { value: voice.id }, voice.name)));
    select.value = voices.some((voice) => voice.id === setting.value) ? setting.value : '';
    select.addEventListener('change', async () => {
      try {
        if (select.value) await api('/settings/tts.voice', { method: 'PUT', body: { value: select.value } });
        else await api('/settings/tts.voice', { method: 'DELETE' });
        toast(t('settings.saved'));
      } catch (error) {
        toast(error.message);
      }
    });
    // A sample in the chosen voice, in the page's language, so a voice can be heard before answers use it.
    const player = h('audio', { hidden: true });
    const sample = h('button', {
      type: 'button', class: 'quiet small', onclick: async () => {
        sample.disabled = true;
        try {
          const body = { text: t('settings.voiceSampleText'), format: 'wav' };
          if (select.value) body.voice = select.value;
          const response = await api('/speech', { method: 'POST', body, raw: true });
          if (player.src) URL.revokeObjectURL(player.src);
          player.src = URL.createObjectURL(await response.blob());
          await player.play().catch(() => {});
        } catch (error) {
          toast(error.message);
        } finally {
          sample.disabled = false;
        }
      },
    }, t('settings.voiceSample'));
    return h('div', { class: 'compact-field' }, h('label', { htmlFor: 'tts-voice' }, t('settings.voice')), select, sample, player);
  }

  async function loadModels() {
    if (admin) {
      api('/settings/models.auto_install').then((setting) => {
        autoInstall.checked = (setting.value ?? setting.defaultValue ?? 'on') === 'on';
      }).catch(() => {});
    }
    try {
      const components = await api('/models');
      modelBody.replaceChildren(...components.map((component) => {
        const progress = h('progress', { max: '1', value: '0', hidden: true, 'aria-label': component.title });
        const status = h('span', { class: 'install-status' });
        const button = admin && !component.installed
          ? h('button', { type: 'button', class: 'small', onclick: () => install(component, button, progress, status) }, t('settings.install'))
          : null;
        return h('tr', { 'data-component': component.name },
          h('th', { scope: 'row' }, component.title),
          h('td', {}, component.installed ? t('settings.yes') : t('settings.missing', { what: component.missing.join(', ') })),
          h('td', { class: 'number' }, component.bytesOnDisk ? `${formatNumber(Math.round(component.bytesOnDisk / 1e6))} MB` : '—'),
          h('td', {}, button, progress, status));
      }));
    } catch (error) {
      modelBody.replaceChildren(h('tr', {}, h('td', { class: 'error', colspan: '4' }, error.message)));
    }
  }

  async function install(component, button, progress, status) {
    button.disabled = true;
    progress.hidden = false;
    try {
      const response = await api('/models/install', { method: 'POST', body: { components: [component.name] }, raw: true });
      for await (const { type, data } of serverEvents(response)) {
        if (type === 'progress') {
          if (typeof data.fraction === 'number') progress.value = data.fraction;
          if (data.text) status.textContent = data.text;
        } else if (type === 'done') {
          status.textContent = t('settings.installedNow');
        } else if (type === 'error') {
          status.textContent = data.error?.message ?? data.message ?? '';
        }
      }
    } catch (error) {
      status.textContent = error.message;
    }
    loadModels();
  }

  async function loadPersonas() {
    try {
      const personas = await api('/personas');
      const taken = new Set(personas.map((persona) => persona.name.toLowerCase()));
      const copyButton = (persona) => h('button', {
        type: 'button', class: 'quiet small', 'aria-label': t('settings.copyPersona', { name: persona.name }), onclick: async () => {
          // The first free name of the form NAME-copy, NAME-copy-2 …
          let name = `${persona.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}-copy`;
          for (let number = 2; taken.has(name); number += 1) name = `${name.replace(/-\d+$/, '')}-${number}`;
          try {
            const copy = await api(`/personas/${encodeURIComponent(persona.name)}/copy`, { method: 'POST', body: { name } });
            toast(t('settings.personaCopied', { name: copy.name }));
            await loadPersonas();
            edit(copy);
          } catch (error) {
            toast(error.message);
          }
        },
      }, t('settings.copy'));
      personaList.replaceChildren(...personas.map((persona) => h('li', { class: 'row' },
        h('strong', {}, persona.name), persona.summary ? h('span', { class: 'hint' }, persona.summary) : null,
        persona.builtIn ? [h('span', { class: 'badge', i18n: 'settings.builtIn' }), copyButton(persona)] : [
          h('button', { type: 'button', class: 'quiet small', 'aria-label': t('settings.editPersona', { name: persona.name }), onclick: () => edit(persona) }, t('settings.edit')),
          copyButton(persona),
          h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('settings.removePersona', { name: persona.name }), onclick: async () => {
            try {
              await api(`/personas/${encodeURIComponent(persona.name)}`, { method: 'DELETE' });
              loadPersonas();
            } catch (error) {
              toast(error.message);
            }
          } }, t('docs.remove')),
        ])));
      translate(personaList);
    } catch (error) {
      personaList.replaceChildren(h('li', { class: 'error' }, error.message));
    }
  }

  /** Fills the persona form with `persona`: saving replaces the whole persona, so all it has is there. */
  function edit(persona) {
    personaName.value = persona.name;
    personaSummary.value = persona.summary ?? '';
    personaPrompt.value = persona.systemPrompt;
    personaModel.value = persona.model ?? '';
    for (const [name, spec] of Object.entries(sampling)) spec.input.value = persona[name] ?? '';
    personaPrompt.focus();
  }

  async function savePersona() {
    try {
      const body = { systemPrompt: personaPrompt.value.trim() };
      if (personaSummary.value.trim()) body.summary = personaSummary.value.trim();
      if (personaModel.value.trim()) body.model = personaModel.value.trim();
      for (const [name, spec] of Object.entries(sampling)) {
        if (spec.input.value !== '') body[name] = spec.input.valueAsNumber;
      }
      await api(`/personas/${encodeURIComponent(personaName.value.trim())}`, { method: 'PUT', body });
      toast(t('settings.saved'));
      personaForm.reset();
      loadPersonas();
    } catch (error) {
      toast(error.message);
    }
  }

  onLiveEvent(personaList, ({ type }) => { if (type === 'models') loadModels(); });
  loadKeys();
  vectors?.reload();
  loadProviders();
  loadModels();
  loadPersonas();
  check();
}
