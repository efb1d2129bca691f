// Images: draw from a prompt (kept in Sibyl's storage, since providers' links expire), see every
// image drawn in a gallery, open its conversation, download it.

import { api } from './api.js';
import { field, h } from './dom.js';
import { formatDate, t } from './i18n.js';

/**
 * Shows the images page.
 * @param {{show: Function, toast: Function}} page
 */
export async function renderImages({ show }) {
  const prompt = h('textarea', { id: 'image-prompt', rows: '2', required: true, i18nPlaceholder: 'images.example' });
  // The image model, and only the sizes and counts it draws (filled once the server says).
  const model = h('select', { id: 'image-model' });
  const size = h('select', { id: 'image-size' });
  const count = h('select', { id: 'image-count' });
  let models = [];
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', i18n: 'images.draw' });
  const gallery = h('ul', { class: 'gallery' });
  const form = h('form', { class: 'stack', onsubmit: (event) => { event.preventDefault(); draw(); } },
    field('images.prompt', prompt),
    h('div', { class: 'row' },
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'image-model', i18n: 'images.model' }), model),
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'image-size', i18n: 'images.size' }), size),
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'image-count', i18n: 'images.count' }), count)),
    error, h('div', { class: 'row' }, button));

  show(h('h1', { i18n: 'images.title' }),
    h('section', { class: 'card', 'aria-labelledby': 'draw-title' }, h('h2', { id: 'draw-title', i18n: 'images.new' }), form),
    h('section', { class: 'card', 'aria-labelledby': 'gallery-title' }, h('h2', { id: 'gallery-title', i18n: 'images.gallery' }), gallery));

  function tile(image) {
    const source = image.url ?? `/api/v1/images/${encodeURIComponent(image.id)}`;
    const extension = (image.mimeType.split('/')[1] ?? 'png').replace('jpeg', 'jpg');
    return h('li', { class: 'tile' },
      h('img', { src: source, alt: image.prompt || t('chat.image'), loading: 'lazy' }),
      h('p', { class: 'caption' }, image.prompt || ''),
      h('div', { class: 'row' },
        h('small', {}, formatDate(image.createdAt)),
        h('a', { href: source, download: `sibyl-${image.id.slice(0, 8)}.${extension}`, class: 'button quiet small-link' }, t('images.download')),
        h('a', { href: `#/chat/${image.conversationId}`, class: 'small-link' }, t('images.conversation'))));
  }

  /** Offers the sizes and counts of the chosen model, keeping what was chosen where it still fits. */
  function followModel() {
    const chosen = models.find((candidate) => candidate.id === model.value);
    if (!chosen) return;
    const [keptSize, keptCount] = [size.value, Number(count.value) || 1];
    size.replaceChildren(...chosen.sizes.map((value) => h('option', { value }, value === 'auto' ? t('images.sizeAuto') : value.replace('x', ' × '))));
    if (chosen.sizes.includes(keptSize)) size.value = keptSize;
    const counts = Array.from({ length: Math.min(chosen.maxCount, 4) }, (_, index) => index + 1);
    count.replaceChildren(...counts.map((value) => h('option', { value: String(value) }, String(value))));
    count.value = String(Math.min(keptCount, counts.length));
    count.disabled = counts.length === 1;
    localStorage.setItem('sibyl.imageModel', model.value);
  }

  async function loadSizes() {
    try {
      const options = await api('/images/options');
      models = options.models;
      model.replaceChildren(...models.map((candidate) => h('option', { value: candidate.id }, candidate.id)));
      const remembered = localStorage.getItem('sibyl.imageModel');
      model.value = models.some((candidate) => candidate.id === remembered) ? remembered : (options.model ?? models[0]?.id ?? '');
      followModel();
    } catch (failure) {
      error.textContent = failure.message;
    }
  }
  model.addEventListener('change', followModel);

  async function load() {
    try {
      const images = await api('/images?limit=60');
      gallery.replaceChildren(...(images.length ? images.map(tile) : [h('li', { class: 'hint' }, t('images.none'))]));
    } catch (failure) {
      gallery.replaceChildren(h('li', { class: 'error' }, failure.message));
    }
  }

  async function draw() {
    error.textContent = '';
    button.disabled = true;
    button.textContent = t('images.drawing');
    try {
      await api('/images', { method: 'POST', body: { prompt: prompt.value.trim(), model: model.value || undefined, size: size.value || undefined, count: Number(count.value) || 1 } });
      prompt.value = '';
      await load();
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
      button.textContent = t('images.draw');
    }
  }

  loadSizes();
  load();
}
