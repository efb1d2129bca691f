// Sibyl's service worker: it keeps the page's shell (the page, its scripts, styles, catalogs,
// icons and Debian's libraries) so the installed app opens without the network. Each of those is
// fetched from the server first, as the page always does (revalidated by its hash), and kept; only
// when the server cannot be reached is the kept copy used. Answers, documents and everything else
// under /api and /v1 always go to the server and are never kept.

const CACHE = 'sibyl-shell';

/** Whether a request is for the shell, which may be kept. */
function isShell(url) {
  return url.origin === self.location.origin && (url.pathname === '/' || url.pathname.startsWith('/assets/') || url.pathname.startsWith('/vendor/'));
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || !isShell(url)) return;
  // A page opened at any address of the app (/#/documents, /setup) gets the one page.
  const key = request.mode === 'navigate' ? new Request('/') : request;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(key, response.clone());
      return response;
    } catch (error) {
      const kept = await cache.match(key);
      if (kept) return kept;
      throw error;
    }
  })());
});
