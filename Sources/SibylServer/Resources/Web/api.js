// Calls to Sibyl's API from the page: JSON in and out, the session's CSRF token on every request
// that changes something, and errors as ApiError with the server's code and words.

import { t } from './i18n.js';

let csrfToken = null;

/** Remembers the CSRF token of the signed-in session (null when signed out). */
export function setCsrfToken(token) {
  csrfToken = token ?? null;
}

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Calls `/api/v1` + `path`. A plain object body is sent as JSON, FormData as it is.
 * Returns the parsed JSON answer (null for 204), or the Response itself with `raw`.
 * @param {string} path
 * @param {{method?: string, body?: any, raw?: boolean, signal?: AbortSignal}} [options]
 */
export async function api(path, { method = 'GET', body, raw = false, signal } = {}) {
  const headers = {};
  const init = { method, headers, credentials: 'same-origin', signal };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (csrfToken && !['GET', 'HEAD'].includes(method)) headers['X-CSRF-Token'] = csrfToken;
  let response;
  try {
    response = await fetch(`/api/v1${path}`, init);
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'unreachable', t('app.unreachable'));
  }
  if (!response.ok) {
    let code = 'http_' + response.status;
    let message = response.statusText;
    try {
      const answer = await response.json();
      code = answer.error?.code ?? code;
      message = answer.error?.message ?? message;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiError(response.status, code, message);
  }
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

/**
 * One server-sent event's block (the lines before a blank line) as `{type, data}`, its data
 * parsed as JSON; null for a block without data (a comment).
 * @param {string} block
 */
export function parseServerEvent(block) {
  let type = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  return data.length ? { type, data: JSON.parse(data.join('\n')) } : null;
}

/**
 * The server-sent events of a streamed answer, as `{type, data}`, until the stream ends.
 * @param {Response} response
 */
export async function* serverEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    buffered += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = parseServerEvent(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      if (event) yield event;
    }
    if (done) return;
  }
}

/** The CSRF header for a request made outside `api()` (an upload with progress). */
export function csrfHeader() {
  return csrfToken ? { 'X-CSRF-Token': csrfToken } : {};
}

/** The open page's one stream of what changes in the caller's data (GET /api/v1/events). */
let liveSource = null;

/** Opens the stream once someone is signed in (or the server is open); closes it at sign-out. */
export function followLiveEvents(open) {
  if (!open) {
    liveSource?.close();
    liveSource = null;
    return;
  }
  if (liveSource || typeof EventSource === 'undefined') return;
  liveSource = new EventSource('/api/v1/events');
  for (const type of ['conversation', 'message', 'documents', 'models', 'log', 'install', 'glasses']) {
    liveSource.addEventListener(type, (event) => {
      let data = {};
      try { data = JSON.parse(event.data); } catch { /* an event without data */ }
      window.dispatchEvent(new CustomEvent('sibyl:live', { detail: { type, data } }));
    });
  }
}

/**
 * Calls `handler({type, data})` for the live events while `element` is in the page (the view
 * that asked is still shown). Events are gathered for `wait` ms after the first of a burst, then
 * handed over in order, each distinct one once.
 */
export function onLiveEvent(element, handler, wait = 150) {
  let batch = null;
  const listener = (event) => {
    if (!document.body.contains(element)) {
      window.removeEventListener('sibyl:live', listener);
      return;
    }
    if (batch) {
      batch.set(JSON.stringify(event.detail), event.detail);
      return;
    }
    batch = new Map([[JSON.stringify(event.detail), event.detail]]);
    setTimeout(async () => {
      const events = [...batch.values()];
      batch = null;
      for (const detail of events) await handler(detail);
    }, wait);
  };
  window.addEventListener('sibyl:live', listener);
}
