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
  // Only the sizes the image model draws (filled once the server says which model that is).
  const size = h('select', { id: 'image-size' });
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', i18n: 'images.draw' });
  const gallery = h('ul', { class: 'gallery' });
  const form = h('form', { class: 'stack', onsubmit: (event) => { event.preventDefault(); draw(); } },
    field('images.prompt', prompt),
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'image-size', i18n: 'images.size' }), size),
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

  async function loadSizes() {
    try {
      const { sizes } = await api('/images/options');
      size.replaceChildren(...sizes.map((value) => h('option', { value }, value.replace('x', ' × '))));
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

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
      await api('/images', { method: 'POST', body: { prompt: prompt.value.trim(), size: size.value || undefined } });
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
