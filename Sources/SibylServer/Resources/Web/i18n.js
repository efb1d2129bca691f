// The page's words in English, Korean and Indonesian: JSON catalogs, `data-i18n` attributes for
// what the HTML holds, and `t()` for what scripts write. Dates and numbers go through Intl.

export const languages = ['en', 'ko', 'id'];
let catalog = {};
let fallback = {};
let current = 'en';

/** The language chosen before, else the browser's if Sibyl speaks it, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem('sibyl.language');
  if (saved && languages.includes(saved)) return saved;
  for (const wanted of navigator.languages ?? [navigator.language]) {
    const base = (wanted || '').toLowerCase().split('-')[0];
    if (languages.includes(base)) return base;
  }
  return 'en';
}

async function load(language) {
  const response = await fetch(`/assets/i18n-${language}.json`);
  if (!response.ok) throw new Error(`no catalog for ${language}`);
  return response.json();
}

/** Loads a language's catalog, translates the page and remembers the choice. */
export async function setLanguage(language) {
  if (!languages.includes(language)) language = 'en';
  if (Object.keys(fallback).length === 0) fallback = await load('en');
  catalog = language === 'en' ? fallback : await load(language);
  current = language;
  localStorage.setItem('sibyl.language', language);
  document.documentElement.lang = language;
  translate(document);
}

export function language() {
  return current;
}

/**
 * The words for `key`, with `{name}` placeholders filled from `values`.
 * @param {string} key
 * @param {Record<string, string | number>} [values]
 */
export function t(key, values = {}) {
  return fill(catalog[key] ?? fallback[key] ?? key, values);
}

/**
 * The words for `key` that count `count` things, in the form the page's language uses for that
 * number: the catalog holds `key.one`, `key.other` and so on, one for each of the language's
 * plural categories (Intl.PluralRules: English has one and other, Korean and Indonesian only
 * other); `{count}` is the number as the language writes it.
 * @param {string} key
 * @param {number} count
 * @param {Record<string, string | number>} [values]
 */
export function tn(key, count, values = {}) {
  const category = new Intl.PluralRules(current).select(count);
  const text = catalog[`${key}.${category}`] ?? catalog[`${key}.other`] ?? fallback[`${key}.${category}`] ?? fallback[`${key}.other`] ?? key;
  return fill(text, { count: formatNumber(count), ...values });
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : `{${name}}`));
}

/** Fills every `data-i18n` element (text), `data-i18n-label` (aria-label) and `data-i18n-placeholder` below `root`. */
export function translate(root) {
  for (const element of root.querySelectorAll('[data-i18n]')) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll('[data-i18n-label]')) element.setAttribute('aria-label', t(element.dataset.i18nLabel));
  for (const element of root.querySelectorAll('[data-i18n-placeholder]')) element.setAttribute('placeholder', t(element.dataset.i18nPlaceholder));
}

/** A date and time in the page's language. */
export function formatDate(value) {
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(value));
}

/** A number in the page's language. */
export function formatNumber(value) {
  return new Intl.NumberFormat(current).format(value);
}
