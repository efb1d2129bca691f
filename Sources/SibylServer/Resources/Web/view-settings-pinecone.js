// The Settings card for where documents' vectors are searched: in the knowledge base itself, or in
// a Pinecone index chosen from the key's indexes (or made here), with each index's size and state.

import { api } from './api.js';
import { h } from './dom.js';
import { formatNumber, t, tn, translate } from './i18n.js';

/** Pinecone's rule for index names: lower-case letters, digits and dashes, at most 45. */
const INDEX_NAME = /^[a-z0-9](?:[a-z0-9-]{0,43}[a-z0-9])?$/;

/**
 * The vector store card (administrators): the store in use, the Pinecone indexes with a button to
 * use each, a form that makes one, and the way back to the knowledge base. `reload` is called by
 * the page after a Pinecone key was saved.
 * @param {{toast: Function}} page
 * @returns {{card: HTMLElement, reload: Function}}
 */
export function vectorStoreCard({ toast }) {
  const status = h('p', { role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  const rows = h('tbody');
  const table = h('div', { class: 'table-scroll', hidden: true }, h('table', { class: 'pinecone-indexes' },
    h('thead', {}, h('tr', {}, ...['settings.pinecone.index', 'settings.pinecone.dimension', 'settings.pinecone.vectors', 'settings.pinecone.state', 'settings.actions']
      .map((key) => h('th', { scope: 'col', i18n: key })))),
    rows));
  const newName = h('input', { id: 'pinecone-new-index', type: 'text', maxlength: '45', autocomplete: 'off', spellcheck: 'false', i18nPlaceholder: 'settings.pinecone.newExample' });
  const create = h('form', { class: 'row', hidden: true, onsubmit: (event) => { event.preventDefault(); makeIndex(); } },
    h('label', { htmlFor: 'pinecone-new-index', i18n: 'settings.pinecone.new' }), newName,
    h('button', { type: 'submit', i18n: 'settings.pinecone.create' }));
  const embedded = h('button', { type: 'button', class: 'quiet', hidden: true, i18n: 'settings.pinecone.useEmbedded', onclick: () => choose('embedded') });
  const card = h('section', { class: 'card', 'aria-labelledby': 'vectors-title' },
    h('h2', { id: 'vectors-title', i18n: 'settings.pinecone.title' }),
    h('p', { class: 'hint', i18n: 'settings.pinecone.hint' }),
    status, error, table, create, embedded);

  async function reload() {
    error.textContent = '';
    try {
      const overview = await api('/vector-store');
      status.textContent = overview.store === 'pinecone'
        ? t('settings.pinecone.inIndex', { index: overview.index })
        : t('settings.pinecone.inKnowledgeBase');
      embedded.hidden = overview.store !== 'pinecone';
      create.hidden = !overview.keySet;
      table.hidden = !overview.keySet || !overview.indexes.length;
      if (!overview.keySet) {
        status.textContent += ` ${t('settings.pinecone.noKey')}`;
        return;
      }
      if (overview.problem) error.textContent = overview.problem;
      rows.replaceChildren(...overview.indexes.map((index) => {
        const inUse = overview.store === 'pinecone' && overview.index === index.name;
        // An index of another vector size cannot take this embedder's vectors.
        const fits = !overview.dimension || !index.dimension || index.dimension === overview.dimension;
        return h('tr', { 'data-index': index.name },
          h('th', { scope: 'row' }, index.name),
          h('td', { class: 'number' }, index.dimension ? formatNumber(index.dimension) : '—'),
          h('td', { class: 'number' }, typeof index.vectorCount === 'number' ? tn('docs.vectorCount', index.vectorCount) : '—'),
          h('td', {}, index.ready ? t('settings.pinecone.ready') : t('settings.pinecone.notReady')),
          h('td', {}, inUse ? h('strong', {}, t('settings.pinecone.inUse'))
            : fits ? h('button', { type: 'button', class: 'small', 'aria-label': t('settings.pinecone.useNamed', { name: index.name }), disabled: !index.ready, onclick: () => choose('pinecone', index.name) }, t('settings.pinecone.use'))
              : h('small', {}, t('settings.pinecone.otherSize', { size: overview.dimension }))));
      }));
      translate(card);
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  async function choose(store, index) {
    error.textContent = '';
    status.textContent = t('settings.pinecone.switching');
    try {
      await api('/vector-store', { method: 'PUT', body: { store, index } });
      toast(store === 'pinecone' ? t('settings.pinecone.nowIndex', { index }) : t('settings.pinecone.nowEmbedded'));
    } catch (failure) {
      error.textContent = failure.message;
    }
    reload();
  }

  async function makeIndex() {
    const name = newName.value.trim();
    error.textContent = '';
    if (!INDEX_NAME.test(name)) {
      error.textContent = t('settings.pinecone.badName');
      newName.focus();
      return;
    }
    status.textContent = t('settings.pinecone.creating', { index: name });
    try {
      await api('/vector-store/indexes', { method: 'POST', body: { name } });
      newName.value = '';
      await choose('pinecone', name);
    } catch (failure) {
      error.textContent = failure.message;
      reload();
    }
  }

  return { card, reload };
}
