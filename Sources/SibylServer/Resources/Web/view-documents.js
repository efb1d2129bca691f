// Documents: drop files or folders (each file's progress and result shown), the list with its
// numbers, one document's statistics (phase timings, tokens, a chart of passage sizes), search
// with ranked passages, remove and re-embed, collections, and the files that failed.

import { api, ApiError, csrfHeader, onLiveEvent, parseServerEvent } from './api.js';
import { h, OCR_LANGUAGES } from './dom.js';
import { formatDate, formatNumber, t, tn, translate } from './i18n.js';

const FORMATS = '.txt,.md,.markdown,.html,.htm,.pdf,.docx,.png,.jpg,.jpeg,.tif,.tiff,.webp,.gif,.bmp';

/** Loads Debian's Chart.js once, when a chart is first drawn; resolves false without it. */
let chartLibrary = null;
function loadCharts() {
  chartLibrary ??= new Promise((resolve) => {
    if (window.Chart) return resolve(true);
    const script = h('script', { src: '/vendor/chart.min.js' });
    script.addEventListener('load', () => resolve(Boolean(window.Chart)));
    script.addEventListener('error', () => resolve(false));
    document.head.append(script);
  });
  return chartLibrary;
}

/**
 * Shows the documents page.
 * @param {{show: Function, toast: Function}} page
 */
export async function renderDocuments({ show, toast }) {
  const collection = h('input', { id: 'collection', type: 'text', list: 'collections', value: localStorage.getItem('sibyl.collection') || 'default', autocomplete: 'off' });
  const collections = h('datalist', { id: 'collections' });
  const fileInput = h('input', { type: 'file', multiple: true, accept: FORMATS, hidden: true, id: 'file-input' });
  const folderInput = h('input', { type: 'file', multiple: true, hidden: true, id: 'folder-input', webkitdirectory: '' });
  const dropZone = h('div', { class: 'drop-zone', id: 'drop-zone' },
    h('p', { i18n: 'docs.drop' }),
    h('div', { class: 'row' },
      h('button', { type: 'button', i18n: 'docs.chooseFiles', onclick: () => fileInput.click() }),
      h('button', { type: 'button', class: 'quiet', i18n: 'docs.chooseFolder', onclick: () => folderInput.click() })),
    h('p', { class: 'hint', i18n: 'docs.formats' }));
  // The languages scans in the next upload are read in: the settings' (docs.ocr_languages) unless chosen here.
  const ocrLanguages = h('select', { id: 'ocr-languages' },
    h('option', { value: '', i18n: 'docs.ocrDefault' }),
    ...OCR_LANGUAGES.map((value) => h('option', { value, i18n: `ocr.${value}` })));
  ocrLanguages.value = localStorage.getItem('sibyl.ocrLanguages') || '';
  ocrLanguages.addEventListener('change', () => localStorage.setItem('sibyl.ocrLanguages', ocrLanguages.value));
  const uploads = h('ul', { class: 'uploads', 'aria-live': 'polite' });
  const table = h('tbody');
  const summary = h('p', { class: 'hint' });
  // Named by its heading once a document is shown (an empty section points at nothing).
  const details = h('section', { class: 'card document-details', hidden: true, tabindex: '-1' });
  const query = h('input', { id: 'search-query', type: 'search', i18nPlaceholder: 'docs.searchExample' });
  const results = h('ol', { class: 'passages' });
  const failures = h('ul', { class: 'failures' });
  const collectionRows = h('tbody');

  show(
    h('h1', { i18n: 'docs.title' }),
    h('div', { class: 'row' }, h('div', { class: 'compact-field' }, h('label', { htmlFor: 'collection', i18n: 'docs.collection' }), collection), collections,
      h('button', { type: 'button', class: 'quiet', i18n: 'docs.reindex', onclick: reindex })),
    h('section', { class: 'card', 'aria-labelledby': 'add-title' }, h('h2', { id: 'add-title', i18n: 'docs.add' }), dropZone, fileInput, folderInput,
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'ocr-languages', i18n: 'docs.ocrLanguages' }), ocrLanguages), uploads),
    h('section', { class: 'card', 'aria-labelledby': 'search-title' },
      h('h2', { id: 'search-title', i18n: 'docs.search' }),
      h('form', { class: 'row', role: 'search', onsubmit: (event) => { event.preventDefault(); search(); } },
        h('label', { class: 'visually-hidden', htmlFor: 'search-query', i18n: 'docs.search' }), query, h('button', { type: 'submit', i18n: 'docs.searchButton' })),
      results),
    h('section', { class: 'card', 'aria-labelledby': 'list-title' },
      h('h2', { id: 'list-title', i18n: 'docs.list' }), summary,
      h('div', { class: 'table-scroll' }, h('table', { class: 'documents' },
        h('thead', {}, h('tr', {}, ...['docs.name', 'docs.format', 'docs.pages', 'docs.tokens', 'docs.passages', 'docs.added', 'docs.actions']
          .map((key) => h('th', { scope: 'col', i18n: key })))),
        table))),
    details,
    h('section', { class: 'card', 'aria-labelledby': 'collections-title' },
      h('h2', { id: 'collections-title', i18n: 'docs.collections' }),
      h('div', { class: 'table-scroll' }, h('table', { class: 'collections' },
        h('thead', {}, h('tr', {}, ...['docs.collection', 'docs.documentsColumn', 'docs.passages', 'docs.vectors', 'docs.actions']
          .map((key) => h('th', { scope: 'col', i18n: key })))),
        collectionRows))),
    h('section', { class: 'card', 'aria-labelledby': 'failures-title' }, h('h2', { id: 'failures-title', i18n: 'docs.failures' }), failures));

  collection.addEventListener('change', () => {
    localStorage.setItem('sibyl.collection', collection.value.trim() || 'default');
    details.hidden = true;
    refresh();
  });
  fileInput.addEventListener('change', () => upload([...fileInput.files]));
  folderInput.addEventListener('change', () => upload([...folderInput.files]));
  for (const type of ['dragenter', 'dragover']) {
    dropZone.addEventListener(type, (event) => {
      event.preventDefault();
      dropZone.classList.add('over');
    });
  }
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('over'));
  dropZone.addEventListener('drop', async (event) => {
    event.preventDefault();
    dropZone.classList.remove('over');
    upload(await droppedFiles(event.dataTransfer));
  });

  function name() {
    return collection.value.trim() || 'default';
  }

  // Documents added or removed elsewhere (another tab, the command line through this server) show at once.
  onLiveEvent(table, ({ type }) => { if (type === 'documents') refresh(); });

  async function refresh() {
    const inCollection = `collection=${encodeURIComponent(name())}`;
    try {
      // A collection nothing was added to yet does not exist: it is not asked about (no failed
      // request), it is shown empty.
      const stats = await api('/collections');
      const exists = stats.some((c) => c.collection === name());
      const [documents, failed] = exists
        ? await Promise.all([api(`/documents?${inCollection}`), api(`/documents/failures?${inCollection}`).catch(() => [])])
        : [[], []];
      collections.replaceChildren(...stats.map((c) => h('option', { value: c.collection })));
      showCollections(stats);
      const mine = stats.find((c) => c.collection === name());
      summary.textContent = mine?.documents
        ? t('docs.summary', { documents: tn('docs.documentCount', mine.documents), pages: tn('docs.pageCount', mine.pages), tokens: tn('docs.tokenCount', mine.tokens), passages: tn('docs.passageCount', mine.passages) })
        : t('docs.emptyCollection');
      table.replaceChildren(...documents.map((document) => h('tr', {},
        h('th', { scope: 'row' }, h('button', { type: 'button', class: 'link', onclick: () => showDetails(document.id) }, document.title || document.path)),
        h('td', {}, document.format.toUpperCase()),
        h('td', { class: 'number' }, document.pages ? formatNumber(document.pages) : '—'),
        h('td', { class: 'number' }, formatNumber(document.tokens)),
        h('td', { class: 'number' }, formatNumber(document.passages)),
        h('td', {}, formatDate(document.addedAt)),
        h('td', {}, h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('docs.removeNamed', { name: document.title || document.path }), onclick: () => removeDocument(document) }, t('docs.remove'))))));
      failures.replaceChildren(...(failed.length ? failed.map((f) => h('li', {}, h('strong', {}, f.path), ': ', f.error, ' ', h('small', {}, formatDate(f.failedAt))))
        : [h('li', { class: 'hint', i18n: 'docs.noFailures' })]));
      translate(failures);
    } catch (error) {
      summary.textContent = error.message;
    }
  }

  /** Uploads files, one row each: bytes sent, then each phase the server reports, then the outcome. */
  async function upload(files) {
    if (!files.length) return;
    const rows = new Map();
    for (const file of files) {
      const label = file.webkitRelativePath || file.name;
      const status = h('span', { class: 'upload-status' }, t('docs.waiting'));
      const bar = h('progress', { max: '100', value: '0', 'aria-label': label });
      const row = h('li', { 'data-file': label }, h('span', { class: 'upload-name' }, label), bar, status);
      rows.set(label, { row, bar, status });
      uploads.append(row);
    }
    const form = new FormData();
    form.append('collection', name());
    if (ocrLanguages.value) form.append('ocrLanguages', ocrLanguages.value);
    for (const file of files) form.append('files', file, file.webkitRelativePath || file.name);
    const byIndex = [...rows.values()];
    const set = (entry, text, value, state) => {
      entry.status.textContent = text;
      if (value !== undefined) entry.bar.value = value;
      if (state) entry.row.dataset.state = state;
    };
    try {
      await streamUpload(form, (sent) => {
        for (const entry of byIndex) if (!entry.row.dataset.state) set(entry, t('docs.uploading', { percent: Math.round(sent * 100) }), Math.round(sent * 40));
      }, (type, event) => {
        if (type === 'progress') {
          const entry = rows.get(event.file) ?? byIndex[event.index];
          if (!entry) return;
          if (event.type === 'phase') set(entry, t(`docs.phase.${event.phase}`), { hashing: 45, extracting: 55, chunking: 70, embedding: 80, indexing: 95 }[event.phase] ?? 50);
          if (event.type === 'fileDone') {
            const failed = event.outcome === 'failed';
            set(entry, failed ? t('docs.failedWith', { error: event.error ?? '' }) : t(`docs.outcome.${event.outcome}`), 100, failed ? 'failed' : 'done');
          }
        } else if (type === 'done') {
          for (const problem of event.problems ?? []) toast(`${problem.input}: ${problem.reason}`);
          toast(t('docs.uploaded', { added: event.added.length, failed: event.failed.length }));
        } else if (type === 'error') {
          throw new Error(event.error?.message ?? event.message ?? t('docs.uploadFailed'));
        }
      });
    } catch (error) {
      for (const entry of byIndex) if (entry.row.dataset.state !== 'done') set(entry, t('docs.failedWith', { error: error.message }), undefined, 'failed');
    }
    fileInput.value = '';
    folderInput.value = '';
    refresh();
  }

  async function showDetails(id) {
    try {
      const { document, passageSizes } = await api(`/documents/${id}`);
      const timings = document.timingsMs;
      const chartBox = h('div', { class: 'chart-box' });
      const rowsTable = h('table', { class: 'histogram' },
        h('caption', { i18n: 'docs.sizesTable' }),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', i18n: 'docs.sizeRange' }), h('th', { scope: 'col', i18n: 'docs.passages' }))),
        h('tbody', {}, passageSizes.map((bin) => h('tr', {}, h('td', {}, `${bin.from}–${bin.to}`), h('td', { class: 'number' }, formatNumber(bin.count))))));
      details.setAttribute('aria-labelledby', 'details-title');
      details.replaceChildren(
        h('div', { class: 'row' }, h('h2', { id: 'details-title' }, document.title || document.path),
          h('button', { type: 'button', class: 'quiet small', i18n: 'dialog.close', onclick: () => { details.hidden = true; } })),
        h('dl', { class: 'stats' },
          h('dt', { i18n: 'docs.file' }), h('dd', {}, document.path),
          h('dt', { i18n: 'docs.format' }), h('dd', {}, document.format.toUpperCase()),
          document.pages ? [h('dt', { i18n: 'docs.pages' }), h('dd', {}, formatNumber(document.pages))] : null,
          h('dt', { i18n: 'docs.tokens' }), h('dd', {}, formatNumber(document.tokens)),
          h('dt', { i18n: 'docs.passages' }), h('dd', {}, formatNumber(document.passages)),
          h('dt', { i18n: 'docs.size' }), h('dd', {}, tn('docs.byteCount', document.bytes)),
          document.ocrConfidence ? [h('dt', { i18n: 'docs.ocr' }), h('dd', {}, `${Math.round(document.ocrConfidence)} %`)] : null,
          h('dt', { i18n: 'docs.timings' }), h('dd', {}, t('docs.timingsValue', { extract: timings.extract, chunk: timings.chunk, embed: timings.embed, index: timings.index })),
          document.warnings.length ? [h('dt', { i18n: 'docs.warnings' }), h('dd', {}, document.warnings.join('; '))] : null),
        h('h3', { i18n: 'docs.sizes' }), chartBox, h('details', {}, h('summary', { i18n: 'docs.sizesTable' }), rowsTable));
      translate(details);
      details.hidden = false;
      details.focus();
      drawChart(chartBox, passageSizes);
    } catch (error) {
      toast(error.message);
    }
  }

  async function drawChart(box, bins) {
    if (!(await loadCharts()) || !bins.length) {
      box.replaceChildren(h('p', { class: 'hint', i18n: 'docs.noChart' }));
      translate(box);
      return;
    }
    const canvas = h('canvas', { role: 'img', 'aria-label': t('docs.chartLabel', { summary: bins.map((b) => `${b.from}–${b.to}: ${b.count}`).join(', ') }) });
    box.replaceChildren(canvas);
    const chart = new window.Chart(canvas, {
      type: 'bar',
      data: { labels: bins.map((b) => `${b.from}–${b.to}`), datasets: [{ label: t('docs.passages'), data: bins.map((b) => b.count) }] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { title: { display: true, text: t('docs.tokensPerPassage') } },
          y: { beginAtZero: true, ticks: { precision: 0 } },
        },
      },
    });
    paintChart(chart, box);
    // The chart follows the theme: a theme picked in the page, or the system's light or dark.
    const repaint = () => {
      if (!canvas.isConnected) {
        themeWatch.disconnect();
        systemScheme.removeEventListener('change', repaint);
        return;
      }
      paintChart(chart, box);
    };
    const themeWatch = new MutationObserver(repaint);
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const systemScheme = matchMedia('(prefers-color-scheme: dark)');
    systemScheme.addEventListener('change', repaint);
  }

  async function search() {
    const text = query.value.trim();
    if (!text) return;
    results.replaceChildren(h('li', { class: 'hint' }, t('loading')));
    try {
      const passages = await api(`/search?q=${encodeURIComponent(text)}&collection=${encodeURIComponent(name())}&limit=10`);
      results.replaceChildren(...(passages.length ? passages.map((p) => h('li', {},
        h('div', { class: 'passage-head' }, h('strong', {}, p.document), p.page ? ` · ${t('chat.page', { page: p.page })}` : '', p.section?.length ? ` · ${p.section.join(' › ')}` : '',
          h('span', { class: 'score' }, t('docs.score', { score: p.score.toFixed(3) }))),
        h('blockquote', {}, p.text))) : [h('li', { class: 'hint' }, t('docs.noResults'))]));
    } catch (error) {
      results.replaceChildren(h('li', { class: 'error' }, error.message));
    }
  }

  async function removeDocument(document) {
    try {
      await api(`/documents/${document.id}`, { method: 'DELETE' });
      toast(t('docs.removed', { name: document.title || document.path }));
      details.hidden = true;
      refresh();
    } catch (error) {
      toast(error.message);
    }
  }

  // A collection being renamed or asked about: the table is not redrawn under the person's typing
  // (a refresh meanwhile is shown when they are done).
  let editing = false;

  /** The collections, each with where its vectors are searched, and buttons to open, rename or remove it. */
  function showCollections(stats) {
    if (editing) return;
    if (!stats.length) {
      collectionRows.replaceChildren(h('tr', {}, h('td', { colspan: '5', class: 'hint' }, t('docs.noCollections'))));
      return;
    }
    collectionRows.replaceChildren(...stats.map((c) => {
      const row = h('tr', { 'data-collection': c.collection });
      const where = c.vectorStore === 'pinecone'
        ? t('docs.inPinecone', { namespace: c.namespace, vectors: typeof c.vectorCount === 'number' ? tn('docs.vectorCount', c.vectorCount) : '?' })
        : t('docs.inKnowledgeBase');
      const actions = h('td', { class: 'actions' },
        h('button', { type: 'button', class: 'quiet small', 'aria-label': t('docs.openNamed', { name: c.collection }), onclick: () => open(c.collection) }, t('docs.open')),
        h('button', { type: 'button', class: 'quiet small', 'aria-label': t('docs.renameNamed', { name: c.collection }), onclick: () => startRename(row, c) }, t('docs.rename')),
        h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('docs.removeCollectionNamed', { name: c.collection }), onclick: () => askRemove(row, c) }, t('docs.remove')));
      row.append(h('th', { scope: 'row' }, c.collection), h('td', { class: 'number' }, formatNumber(c.documents)), h('td', { class: 'number' }, formatNumber(c.passages)), h('td', {}, where), actions);
      return row;
    }));
  }

  function doneEditing() {
    editing = false;
    refresh();
  }

  function open(chosen) {
    collection.value = chosen;
    collection.dispatchEvent(new Event('change'));
  }

  /** Turns a collection's name into a field; Enter or Save renames it, Escape or Cancel leaves it. */
  function startRename(row, c) {
    const field = h('input', { type: 'text', value: c.collection, maxlength: '64', 'aria-label': t('docs.newName', { name: c.collection }) });
    const error = h('p', { class: 'error', role: 'alert' });
    editing = true;
    const save = async () => {
      const wanted = field.value.trim();
      if (!wanted || wanted === c.collection) return doneEditing();
      try {
        const renamed = await api(`/collections/${encodeURIComponent(c.collection)}`, { method: 'PATCH', body: { name: wanted } });
        toast(t('docs.renamed', { from: c.collection, to: renamed.collection }));
        if (name() === c.collection) {
          collection.value = renamed.collection;
          localStorage.setItem('sibyl.collection', renamed.collection);
        }
        doneEditing();
      } catch (failure) {
        error.textContent = failure.message;
        field.focus();
      }
    };
    field.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') save();
      if (event.key === 'Escape') doneEditing();
    });
    row.firstChild.replaceChildren(field, error);
    row.lastChild.replaceChildren(
      h('button', { type: 'button', class: 'small', onclick: save }, t('docs.save')),
      h('button', { type: 'button', class: 'quiet small', onclick: doneEditing }, t('docs.cancel')));
    field.focus();
    field.select();
  }

  /** Asks in the row itself before a collection and its documents go. */
  function askRemove(row, c) {
    editing = true;
    const question = h('span', { role: 'alert' }, t('docs.removeCollectionQuestion', { name: c.collection, documents: tn('docs.documentCount', c.documents) }));
    const confirmButton = h('button', { type: 'button', class: 'small danger', onclick: async () => {
      try {
        await api(`/collections/${encodeURIComponent(c.collection)}`, { method: 'DELETE' });
        toast(t('docs.collectionRemoved', { name: c.collection }));
      } catch (failure) {
        toast(failure.message);
      }
      doneEditing();
    } }, t('docs.removeConfirm'));
    row.lastChild.replaceChildren(question, ' ', confirmButton, h('button', { type: 'button', class: 'quiet small', onclick: doneEditing }, t('docs.cancel')));
    confirmButton.focus();
  }

  async function reindex() {
    try {
      toast(t('docs.reindexing'));
      const report = await api('/documents/reindex', { method: 'POST', body: { collection: name() } });
      toast(t('docs.reindexed', { documents: tn('docs.documentCount', report.documents), passages: tn('docs.passageCount', report.passages) }));
      refresh();
    } catch (error) {
      toast(error.message);
    }
  }

  refresh();
}

/** Every file dropped, folders read through (Chromium and Firefox give folders as entries). */
async function droppedFiles(transfer) {
  const entries = [...transfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...transfer.files];
  const files = [];
  async function walk(entry, prefix) {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      files.push(prefix ? new File([file], `${prefix}${file.name}`, { type: file.type }) : file);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  }
  for (const entry of entries) await walk(entry, '');
  return files;
}

/**
 * Sends the form with XMLHttpRequest (fetch cannot report upload progress) and reads the
 * server's progress events as they come.
 */
function streamUpload(form, onSent, onEvent) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v1/documents');
    for (const [key, value] of Object.entries(csrfHeader())) request.setRequestHeader(key, value);
    request.setRequestHeader('Accept', 'text/event-stream');
    let seen = 0;
    let failure = null;
    const drain = () => {
      const text = request.responseText;
      let end;
      while ((end = text.indexOf('\n\n', seen)) >= 0) {
        const block = text.slice(seen, end);
        seen = end + 2;
        try {
          const event = parseServerEvent(block);
          if (event) onEvent(event.type, event.data);
        } catch (error) {
          failure ??= error;
        }
      }
    };
    request.upload.addEventListener('progress', (event) => { if (event.lengthComputable) onSent(event.loaded / event.total); });
    request.addEventListener('progress', () => { if (request.status === 200) drain(); });
    request.addEventListener('load', () => {
      if (request.status !== 200) {
        let message = request.statusText;
        try { message = JSON.parse(request.responseText).error?.message ?? message; } catch { /* not JSON */ }
        return reject(new ApiError(request.status, 'upload_failed', message));
      }
      drain();
      return failure ? reject(failure) : resolve();
    });
    request.addEventListener('error', () => reject(new ApiError(0, 'unreachable', t('error.unreachable'))));
    request.send(form);
  });
}

/**
 * A palette colour as a canvas takes it. The palette's variables hold light-dark() pairs, which
 * only CSS resolves: an element inside `where` is given the colour and asked what it came to.
 */
function themeColor(variable, where) {
  const probe = document.createElement('span');
  probe.hidden = true;
  probe.style.color = `var(${variable})`;
  where.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

/** Gives the chart the theme's colours: bars in the accent, text and grid lines readable on the card. */
function paintChart(chart, where) {
  const text = themeColor('--text', where);
  const grid = themeColor('--border', where);
  chart.data.datasets[0].backgroundColor = themeColor('--accent', where);
  const { x, y } = chart.options.scales;
  x.title.color = text;
  for (const axis of [x, y]) {
    axis.ticks.color = text;
    axis.grid.color = grid;
  }
  chart.update();
}
