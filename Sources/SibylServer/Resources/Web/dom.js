// A small helper for building the page's elements without HTML strings (nothing the server or a
// model sends is ever parsed as HTML here).

/**
 * Makes an element. Props: `class`, `i18n` / `i18nLabel` / `i18nPlaceholder` (catalog keys),
 * `on<event>` handlers, DOM properties (`hidden`, `value`, `disabled` …) and other attributes.
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...(Node | string | null | undefined | false | Array<any>)} children
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'i18n') element.dataset.i18n = value;
    else if (key === 'i18nLabel') element.dataset.i18nLabel = value;
    else if (key === 'i18nPlaceholder') element.dataset.i18nPlaceholder = value;
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (['hidden', 'value', 'disabled', 'checked', 'htmlFor', 'type', 'open', 'selected', 'textContent'].includes(key)) element[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  element.append(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

/**
 * A labelled control (the label names it by its id), with an optional hint below it that screen
 * readers read as the control's description.
 * @param {string} labelKey @param {HTMLElement} control @param {string} [hintKey]
 */
export function field(labelKey, control, hintKey) {
  const hint = hintKey ? h('p', { class: 'hint', i18n: hintKey, id: `${control.id}-hint` }) : null;
  if (hint) control.setAttribute('aria-describedby', hint.id);
  return h('div', { class: 'field' }, h('label', { htmlFor: control.id, i18n: labelKey }), control, hint);
}

/** A text that only screen readers read. */
export function hiddenText(text) {
  return h('span', { class: 'visually-hidden' }, text);
}

/** The languages scans can be read in (docs.ocr_languages), as tesseract names them. */
export const OCR_LANGUAGES = ['eng', 'kor', 'ind', 'eng,kor', 'eng,ind'];
