// The operations log: filter by time, level, operation and words; follow it live (new entries are
// added as the server logs them); export what the filter shows as CSV or JSON.

import { api, onLiveEvent } from './api.js';
import { field, h } from './dom.js';
import { formatDate, t, tn, translate } from './i18n.js';

const LEVELS = ['debug', 'info', 'warning', 'error'];

/**
 * Shows the log page.
 * @param {{show: Function, toast: Function}} page
 */
export async function renderLogs({ show }) {
  const level = h('select', { id: 'log-level' }, h('option', { value: '', i18n: 'logs.anyLevel' }), LEVELS.map((name) => h('option', { value: name }, t(`logs.level.${name}`))));
  const operation = h('input', { id: 'log-operation', type: 'text', i18nPlaceholder: 'logs.operationExample' });
  const words = h('input', { id: 'log-search', type: 'search' });
  const since = h('input', { id: 'log-since', type: 'datetime-local' });
  const until = h('input', { id: 'log-until', type: 'datetime-local' });
  const follow = h('input', { id: 'log-follow', type: 'checkbox' });
  const csv = h('a', { class: 'button quiet', download: 'sibyl-log.csv', i18n: 'logs.exportCSV' });
  const json = h('a', { class: 'button quiet', download: 'sibyl-log.json', i18n: 'logs.exportJSON' });
  const body = h('tbody');
  const count = h('p', { class: 'hint', role: 'status' });
  const filters = h('form', { class: 'filters', onsubmit: (event) => { event.preventDefault(); load(); } },
    field('logs.level', level), field('logs.operation', operation), field('logs.words', words),
    field('logs.since', since), field('logs.until', until),
    h('div', { class: 'row' }, h('button', { type: 'submit', i18n: 'logs.apply' }),
      h('label', { class: 'switch', htmlFor: 'log-follow' }, follow, h('span', { i18n: 'logs.follow' })), csv, json));

  show(h('h1', { i18n: 'logs.title' }), h('section', { class: 'card', 'aria-label': t('logs.filters') }, filters), count,
    h('div', { class: 'table-scroll card' }, h('table', { class: 'log' },
      h('thead', {}, h('tr', {}, ...['logs.at', 'logs.level', 'logs.operation', 'logs.message'].map((key) => h('th', { scope: 'col', i18n: key })))),
      body)));

  let entries = [];

  function query(extra = {}) {
    const parameters = new URLSearchParams();
    if (level.value) parameters.set('level', level.value);
    if (operation.value.trim()) parameters.set('operation', operation.value.trim());
    if (words.value.trim()) parameters.set('search', words.value.trim());
    if (since.value) parameters.set('since', new Date(since.value).toISOString());
    if (until.value) parameters.set('until', new Date(until.value).toISOString());
    for (const [key, value] of Object.entries(extra)) parameters.set(key, value);
    return parameters;
  }

  function row(entry) {
    return h('tr', { 'data-level': entry.level },
      h('td', {}, h('time', { datetime: entry.at }, formatDate(entry.at))),
      h('td', { class: `level ${entry.level}` }, t(`logs.level.${entry.level}`)),
      h('td', {}, h('code', {}, entry.operation)),
      h('td', { class: 'message' }, entry.message));
  }

  function showCount() {
    count.textContent = tn('logs.count', entries.length);
  }

  async function load() {
    const parameters = query({ limit: '500' });
    csv.href = `/api/v1/logs?${query({ format: 'csv', limit: '100000' })}`;
    json.href = `/api/v1/logs?${query({ format: 'json', limit: '100000' })}`;
    try {
      entries = await api(`/logs?${parameters}`);
      body.replaceChildren(...entries.slice().reverse().map(row));
      showCount();
    } catch (error) {
      count.textContent = error.message;
    }
  }

  /** Adds what was logged since the newest entry shown, newest on top. */
  async function poll() {
    const newest = entries.at(-1);
    try {
      const fresh = await api(`/logs?${query(newest ? { since: newest.at, limit: '500' } : { limit: '500' })}`);
      const known = new Set(entries.map((entry) => entry.id));
      const added = fresh.filter((entry) => !known.has(entry.id));
      if (added.length) {
        entries.push(...added);
        body.prepend(...added.slice().reverse().map(row));
        showCount();
      }
    } catch {
      // The next tick tries again.
    }
  }

  // Following: new entries are added as the server says it logged them (its live events).
  onLiveEvent(body, ({ type }) => { if (type === 'log' && follow.checked) poll(); });
  translate(level);
  load();
}
