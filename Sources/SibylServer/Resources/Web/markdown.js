// Model output as HTML that runs nothing: Markdown through Debian's marked, with raw HTML turned
// into text, links and images only to safe URLs, inserted with the HTML Sanitizer API where the
// browser has it; code highlighted with highlight.js and maths typeset with KaTeX when installed.
// Without the libraries the answer is shown as plain text.

const SAFE_URL = /^(https?:|mailto:|#|\/(?!\/))/i;
let configured = false;

/** Loads a script or style sheet of Debian's libraries once; resolves whether it loaded. */
const loading = new Map();
function load(path) {
  if (!loading.has(path)) {
    loading.set(path, new Promise((resolve) => {
      const element = path.endsWith('.css')
        ? Object.assign(document.createElement('link'), { rel: 'stylesheet', href: path })
        : Object.assign(document.createElement('script'), { src: path });
      element.addEventListener('load', () => resolve(true));
      element.addEventListener('error', () => resolve(false));
      document.head.append(element);
    }));
  }
  return loading.get(path);
}

/** highlight.js (846 KB) and KaTeX are loaded only when an answer has code or maths. */
async function loadHighlighter() {
  // The page's scheme as the theme switcher resolved it (app.js).
  load(`/vendor/highlight-${document.documentElement.dataset.scheme === 'dark' ? 'dark' : 'light'}.css`);
  return load('/vendor/highlight.min.js');
}

async function loadMaths() {
  load('/vendor/katex.min.css');
  return (await load('/vendor/katex.min.js')) && load('/vendor/katex-auto-render.js');
}

const MATHS = /\$\$|\\\(|\\\[/;

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function configure() {
  if (configured || typeof window.marked === 'undefined') return configured;
  window.marked.use({
    gfm: true,
    breaks: false,
    renderer: {
      html: (html) => escapeHtml(typeof html === 'string' ? html : html?.text ?? ''),
      link: (href, title, text) => (SAFE_URL.test(href ?? '') ? false : text),
      image: (href, title, text) => (SAFE_URL.test(href ?? '') ? false : escapeHtml(text ?? '')),
    },
  });
  configured = true;
  return true;
}

/**
 * Renders Markdown into `element`, replacing what it held.
 * @param {HTMLElement} element
 * @param {string} text
 * @param {{final?: boolean}} [options] final: also highlight code and typeset maths (not on every streamed delta)
 */
export function renderMarkdown(element, text, { final = true } = {}) {
  if (!configure()) {
    element.textContent = text;
    element.classList.add('plain');
    return;
  }
  const html = window.marked.parse(text);
  if (typeof element.setHTML === 'function') {
    element.setHTML(html);
  } else {
    element.innerHTML = html;
    for (const bad of element.querySelectorAll('script, iframe, object, embed, style')) bad.remove();
    for (const node of element.querySelectorAll('*')) {
      for (const attribute of [...node.attributes]) {
        if (attribute.name.startsWith('on') || (['href', 'src'].includes(attribute.name) && !SAFE_URL.test(attribute.value))) node.removeAttribute(attribute.name);
      }
    }
  }
  for (const link of element.querySelectorAll('a[href]')) {
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
  }
  if (!final) return;
  const blocks = element.querySelectorAll('pre code');
  if (blocks.length) {
    loadHighlighter().then((loaded) => {
      if (!loaded || !window.hljs) return;
      for (const block of blocks) {
        if (window.hljs.highlightElement) window.hljs.highlightElement(block);
        else window.hljs.highlightBlock(block);
      }
    });
  }
  if (MATHS.test(text)) loadMaths().then(() => typeset(element));
}

function typeset(element) {
  if (window.renderMathInElement) {
    window.renderMathInElement(element, {
      delimiters: [
        { left: '$$', right: '$$', display: true },
        { left: '\\[', right: '\\]', display: true },
        { left: '\\(', right: '\\)', display: false },
      ],
      throwOnError: false,
    });
  }
}
