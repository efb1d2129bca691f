// The chat: the conversation list (search, open, rename, export, delete) beside one conversation,
// whose answers stream in as Markdown, can be stopped, retried and copied, and cite the user's
// documents when the documents switch is on.

import { api, ApiError, onLiveEvent, serverEvents } from './api.js';
import { field, h } from './dom.js';
import { formatDate, language, t, translate } from './i18n.js';
import { renderMarkdown } from './markdown.js';
import { SpeechRecorder, decibels, extensionFor, speechWAV } from './voice.js';

/**
 * Shows the chat, with conversation `id` open (or a new one when null).
 * @param {{show: Function, who: any, id: string | null, toast: Function}} page
 */
export async function renderChat({ show, who, id, toast }) {
  // streaming: the answer this page asked for, as it comes; following: another's answer it follows.
  const state = { conversation: null, streaming: null, following: false, personas: [] };

  // The conversation list.
  const search = h('input', { type: 'search', id: 'conversation-search', i18nPlaceholder: 'chat.search', i18nLabel: 'chat.search' });
  const list = h('ul', { class: 'conversation-list' });
  // Which conversations the list shows: all, those with drawn images, or the others.
  const kind = h('select', { id: 'conversation-kind', onchange: () => loadList() },
    h('option', { value: '', i18n: 'chat.kindAll' }), h('option', { value: 'text', i18n: 'chat.kindText' }), h('option', { value: 'images', i18n: 'chat.kindImages' }));
  const sidebar = h('aside', { class: 'conversations', id: 'conversations', 'aria-labelledby': 'conversations-title' },
    h('div', { class: 'row' },
      h('h2', { id: 'conversations-title', i18n: 'chat.conversations' }),
      h('a', { class: 'button', href: '#/chat', i18n: 'chat.new' }),
      h('button', { type: 'button', class: 'quiet drawer-close', i18n: 'chat.closeList', onclick: () => openDrawer(false) })),
    search, h('div', { class: 'compact-field' }, h('label', { htmlFor: 'conversation-kind', i18n: 'chat.kind' }), kind), list);
  // On a phone the list is a drawer, opened from the thread's header and closed by choosing a
  // conversation, the close button, a tap beside it or Escape.
  const drawerToggle = h('button', {
    type: 'button', class: 'quiet drawer-toggle', 'aria-controls': 'conversations', 'aria-expanded': 'false', i18n: 'chat.conversations',
    onclick: () => openDrawer(true),
  });
  const backdrop = h('div', { class: 'drawer-backdrop', onclick: () => openDrawer(false) });
  function openDrawer(open) {
    chat.classList.toggle('drawer-open', open);
    drawerToggle.setAttribute('aria-expanded', String(open));
    if (open) search.focus();
    else if (sidebar.contains(document.activeElement)) drawerToggle.focus();
  }
  sidebar.addEventListener('keydown', (event) => { if (event.key === 'Escape') openDrawer(false); });
  list.addEventListener('click', (event) => { if (event.target.closest('a')) openDrawer(false); });

  // The open conversation.
  const title = h('h1', { id: 'thread-title' });
  const renameButton = h('button', { type: 'button', class: 'quiet', i18n: 'chat.rename', onclick: rename });
  const exportLink = h('a', { class: 'button quiet', i18n: 'chat.export', download: '' });
  const deleteButton = h('button', { type: 'button', class: 'quiet danger', i18n: 'chat.delete', onclick: remove });
  const actions = h('div', { class: 'thread-actions' }, renameButton, exportLink, deleteButton);
  const persona = h('select', { id: 'persona', onchange: saveOptions });
  const mode = h('select', { id: 'mode', onchange: () => { showTarget(); saveOptions(); } },
    h('option', { value: 'chat', i18n: 'chat.modeChat' }), h('option', { value: 'translator', i18n: 'chat.modeTranslator' }));
  const target = h('input', { id: 'translate-to', type: 'text', i18nPlaceholder: 'chat.targetExample', onchange: saveOptions });
  const targetField = h('div', { class: 'compact-field' }, h('label', { htmlFor: 'translate-to', i18n: 'chat.translateTo' }), target);
  const documents = h('input', { id: 'use-documents', type: 'checkbox', checked: localStorage.getItem('sibyl.documents') === 'on' });
  documents.addEventListener('change', () => localStorage.setItem('sibyl.documents', documents.checked ? 'on' : 'off'));
  const answerLanguage = h('select', { id: 'answer-language' },
    h('option', { value: '', i18n: 'chat.answerIn.question' }), h('option', { value: 'English' }, 'English'),
    h('option', { value: 'Korean' }, '한국어 (Korean)'), h('option', { value: 'Indonesian' }, 'Bahasa Indonesia'));
  answerLanguage.value = localStorage.getItem('sibyl.answerLanguage') ?? '';
  answerLanguage.addEventListener('change', () => localStorage.setItem('sibyl.answerLanguage', answerLanguage.value));
  const autoplay = h('input', { id: 'speak-answers', type: 'checkbox', checked: localStorage.getItem('sibyl.autoplay') === 'on' });
  autoplay.addEventListener('change', () => localStorage.setItem('sibyl.autoplay', autoplay.checked ? 'on' : 'off'));
  // Hands-free: after a spoken answer, listen for the next question (speaking over the answer stops it).
  const handsFree = h('input', { id: 'hands-free', type: 'checkbox', checked: localStorage.getItem('sibyl.handsFree') === 'on' });
  handsFree.addEventListener('change', () => localStorage.setItem('sibyl.handsFree', handsFree.checked ? 'on' : 'off'));
  // The chat model this conversation's answers are asked of, kept per conversation in this
  // browser; empty: the persona's or the settings' model.
  const model = h('select', { id: 'chat-model', onchange: () => rememberModel() }, h('option', { value: '', i18n: 'chat.modelDefault' }));
  const options = h('div', { class: 'thread-options', id: 'thread-options' },
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'persona', i18n: 'chat.persona' }), persona),
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'chat-model', i18n: 'chat.model' }), model),
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'mode', i18n: 'chat.mode' }), mode),
    targetField,
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'answer-language', i18n: 'chat.answerIn' }), answerLanguage),
    h('label', { class: 'switch', htmlFor: 'use-documents' }, documents, h('span', { i18n: 'chat.useDocuments' })),
    h('label', { class: 'switch', htmlFor: 'speak-answers' }, autoplay, h('span', { i18n: 'chat.speakAnswers' })),
    h('label', { class: 'switch', htmlFor: 'hands-free' }, handsFree, h('span', { i18n: 'chat.handsFree' })));
  const messages = h('ol', { class: 'messages', 'aria-labelledby': 'thread-title' });
  const onboarding = localStorage.getItem('sibyl.onboarded') ? null : h('section', { class: 'card onboarding', 'aria-labelledby': 'onboarding-title' },
    h('h2', { id: 'onboarding-title', i18n: 'onboarding.title' }),
    h('p', { i18n: 'onboarding.offline' }),
    h('p', { i18n: 'onboarding.online' }),
    h('div', { class: 'row' },
      h('button', { type: 'button', i18n: 'onboarding.stayOffline', onclick: () => { localStorage.setItem('sibyl.onboarded', 'yes'); onboarding.remove(); question.focus(); } }),
      h('a', { class: 'button quiet', href: '#/settings', i18n: 'onboarding.connect', onclick: () => localStorage.setItem('sibyl.onboarded', 'yes') })));
  const empty = h('div', { class: 'empty' },
    onboarding,
    h('p', { class: 'greeting' }, who.local ? t('chat.greetingLocal') : t('chat.greeting', { name: who.name })),
    h('p', { class: 'hint', i18n: 'chat.emptyHint' }));
  const question = h('textarea', { id: 'question', rows: '2', i18nPlaceholder: 'chat.placeholder', required: true });
  const sendButton = h('button', { type: 'submit', i18n: 'chat.send' });
  const stopButton = h('button', { type: 'button', class: 'danger', i18n: 'chat.stop', hidden: true, onclick: stop });
  const micButton = h('button', { type: 'button', class: 'quiet mic', i18n: 'chat.speak', 'aria-pressed': 'false', onclick: () => toggleVoice() });
  const imageInput = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', hidden: true, id: 'attach-image' });
  const attachButton = h('button', { type: 'button', class: 'quiet', i18n: 'chat.attach', onclick: () => imageInput.click() });
  const attached = h('div', { class: 'attached', hidden: true });
  let attachment = null;
  imageInput.addEventListener('change', async () => {
    const file = imageInput.files[0];
    imageInput.value = '';
    if (!file) return;
    if (file.size > 20 * 1024 * 1024) {
      toast(t('chat.imageTooLarge'));
      return;
    }
    const data = await new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.addEventListener('load', () => resolve(String(reader.result).split(',')[1] ?? ''));
      reader.addEventListener('error', () => reject(reader.error));
      reader.readAsDataURL(file);
    });
    attachment = { mimeType: file.type, filename: file.name, data };
    attached.replaceChildren(h('span', {}, t('chat.attached', { name: file.name })),
      h('button', { type: 'button', class: 'quiet small', i18n: 'chat.detach', onclick: () => { attachment = null; attached.hidden = true; } }));
    translate(attached);
    attached.hidden = false;
  });
  const level = h('meter', { class: 'level', min: '-80', max: '0', low: '-45', high: '-10', value: '-80', hidden: true, 'aria-label': t('chat.level') });
  const composer = h('form', { class: 'composer', onsubmit: (event) => { event.preventDefault(); ask(); } },
    h('label', { class: 'visually-hidden', htmlFor: 'question', i18n: 'chat.question' }), question, level, imageInput, attachButton, micButton, sendButton, stopButton);
  question.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  // On a phone the persona, mode and the switches are behind one button.
  const optionsToggle = h('button', {
    type: 'button', class: 'quiet options-toggle', 'aria-controls': 'thread-options', 'aria-expanded': 'false', i18n: 'chat.options',
    onclick: () => {
      const open = !thread.classList.contains('options-open');
      thread.classList.toggle('options-open', open);
      optionsToggle.setAttribute('aria-expanded', String(open));
    },
  });
  const thread = h('section', { class: 'thread', 'aria-labelledby': 'thread-title' },
    h('header', { class: 'thread-head' }, h('div', { class: 'row' }, drawerToggle, title, optionsToggle, actions), options),
    empty, messages, attached, composer);
  const dialog = h('dialog', { class: 'card' });
  const chat = h('div', { class: 'chat' }, sidebar, backdrop, thread);

  show(chat, dialog);

  let searchTimer = null;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(loadList, 250);
  });

  function showTarget() {
    targetField.hidden = mode.value !== 'translator';
  }

  function setBusy(busy) {
    sendButton.hidden = busy;
    stopButton.hidden = !busy;
    question.disabled = false;
  }

  function showConversation() {
    const conversation = state.conversation;
    title.textContent = conversation?.title || t('chat.untitled');
    actions.hidden = !conversation;
    if (conversation) {
      exportLink.href = `/api/v1/conversations/${encodeURIComponent(conversation.id)}/export?format=markdown`;
      persona.value = conversation.persona;
      mode.value = conversation.mode;
      target.value = conversation.translateTo ?? '';
    }
    showTarget();
    empty.hidden = messages.childElementCount > 0;
    document.title = conversation?.title ? `${conversation.title} · Sibyl` : 'Sibyl';
  }

  let listRequests = 0;
  async function loadList() {
    const query = search.value.trim();
    // Only the newest request's answer is shown: one asked earlier (the first load, a live event)
    // may come back after one asked with the words just typed.
    const request = ++listRequests;
    try {
      const page = await api(`/conversations?limit=100${query ? `&search=${encodeURIComponent(query)}` : ''}${kind.value ? `&kind=${kind.value}` : ''}`);
      if (request !== listRequests) return;
      list.replaceChildren(...page.items.map((item) => h('li', {},
        h('a', { href: `#/chat/${item.id}`, 'aria-current': item.id === state.conversation?.id ? 'page' : null },
          h('span', { class: 'conversation-title' }, item.title || t('chat.untitled')),
          h('small', {}, formatDate(item.updatedAt), item.preview ? ` · ${item.preview}` : '')))));
      if (page.items.length === 0) list.replaceChildren(h('li', { class: 'hint' }, query ? t('chat.noMatches') : t('chat.noConversations')));
    } catch (error) {
      if (request === listRequests) list.replaceChildren(h('li', { class: 'error' }, error.message));
    }
  }

  async function loadPersonas() {
    try {
      state.personas = await api('/personas');
    } catch {
      state.personas = [{ name: 'assistant' }];
    }
    persona.replaceChildren(...state.personas.map((p) => h('option', { value: p.name }, p.summary ? `${p.name}: ${p.summary}` : p.name)));
    persona.value = state.conversation?.persona ?? 'assistant';
  }

  /** The chat models to pick from: the provider's, and the local ones installed. */
  async function loadModels() {
    try {
      const choices = await api('/chat/models');
      model.replaceChildren(
        h('option', { value: '' }, choices.current ? t('chat.modelDefaultNamed', { name: choices.current }) : t('chat.modelDefault')),
        ...choices.models.map((choice) => h('option', { value: choice.id }, choice.local ? t('chat.modelLocal', { name: choice.id }) : choice.id)));
    } catch {
      // Without the list the default applies; the menu offers only it.
    }
    showModel();
  }

  const modelKey = (id) => `sibyl.model.${id ?? 'new'}`;

  /** Shows the model picked for the open conversation (or for the next new one). */
  function showModel() {
    const picked = localStorage.getItem(modelKey(state.conversation?.id)) ?? '';
    model.value = [...model.options].some((option) => option.value === picked) ? picked : '';
  }

  function rememberModel() {
    if (model.value) localStorage.setItem(modelKey(state.conversation?.id), model.value);
    else localStorage.removeItem(modelKey(state.conversation?.id));
  }

  /** The options a new conversation starts with, or a change saves. */
  function chosenOptions() {
    // Until the personas have loaded the list is empty: the server's default persona then applies.
    const body = { mode: mode.value };
    if (persona.value) body.persona = persona.value;
    if (mode.value === 'translator' && target.value.trim()) body.translateTo = target.value.trim();
    return body;
  }

  async function saveOptions() {
    if (!state.conversation) return;
    if (mode.value === 'translator' && !target.value.trim()) return;
    try {
      state.conversation = await api(`/conversations/${state.conversation.id}`, { method: 'PATCH', body: chosenOptions() });
    } catch (error) {
      toast(error.message);
    }
  }

  // Messages.

  function bubble(message) {
    const own = message.role === 'user';
    const body = h('div', { class: 'body' });
    const meta = h('div', { class: 'meta' });
    const item = h('li', { class: `bubble ${own ? 'own' : 'answer'}`, 'data-id': message.id ?? '' }, body, meta);
    fill(item, message);
    return item;
  }

  /** Puts a message's text, citations, status and buttons in its bubble. */
  function fill(item, message) {
    item.message = message;
    const own = message.role === 'user';
    const body = item.querySelector('.body');
    item.dataset.status = message.status;
    item.dataset.id = message.id ?? '';
    item.setAttribute('aria-busy', message.status === 'pending' ? 'true' : 'false');
    if (own) body.textContent = message.text;
    else renderMarkdown(body, message.text, { final: message.status !== 'pending' });
    item.querySelector('.citations-block')?.remove();
    item.querySelector('.citations')?.remove();
    // Once the answer is settled, its tool calls are among its sources.
    if (message.status !== 'pending') item.querySelector('.tool-activity')?.remove();
    if (!own && message.citations?.length) {
      item.insertBefore(citations(item, message), item.querySelector('.meta'));
      linkCitations(body, item);
    }
    for (const image of message.attachments?.filter((a) => a.kind === 'image' && a.url) ?? []) {
      body.append(h('img', { src: image.url, alt: image.filename || t('chat.image'), class: 'attached-image', loading: 'lazy' }));
    }
    const meta = item.querySelector('.meta');
    const parts = [h('time', { datetime: message.createdAt ?? new Date().toISOString() }, formatDate(message.createdAt ?? Date.now()))];
    const status = statusText(message);
    if (status) parts.push(h('span', { class: `status ${message.status}` }, status));
    if (!own && message.status !== 'pending') {
      parts.push(h('button', { type: 'button', class: 'quiet small', i18n: 'chat.copy', onclick: async () => {
        try {
          await navigator.clipboard.writeText(message.text);
          toast(t('chat.copied'));
        } catch {
          toast(t('chat.copyFailed'));
        }
      } }));
    }
    if (!own && message.status === 'complete' && message.id && state.conversation) {
      parts.push(h('button', { type: 'button', class: 'quiet small', i18n: 'chat.listen', onclick: () => {
        play(`/api/v1/conversations/${encodeURIComponent(state.conversation.id)}/messages/${encodeURIComponent(message.id)}/speech`, item);
      } }));
    }
    if (!own && ['failed', 'cancelled'].includes(message.status) && item === messages.lastElementChild) {
      parts.push(h('button', { type: 'button', class: 'small', i18n: 'chat.retry', onclick: retry }));
    }
    meta.replaceChildren(...parts);
    translate(meta);
  }

  function statusText(message) {
    switch (message.status) {
      case 'pending': return t('chat.writing');
      case 'sending': return t('chat.sending');
      case 'failed': return message.error ? t('chat.failedWith', { error: message.error }) : t('chat.failed');
      case 'cancelled': return t('chat.stopped');
      case 'declined': return t('chat.declined');
      default: return '';
    }
  }

  /**
   * The sources of an answer from documents: once it is written, only those some sentence rests on
   * (`claims`), and which one supports each sentence; while it is being written, all it was given.
   */
  function citations(item, message) {
    const cited = message.claims ? new Set(message.claims.flatMap((claim) => claim.citations)) : null;
    // Every tool call stays listed, cited or not: the thread shows what was called. So does every
    // remembered fact the answer kept (the server keeps only those it made use of).
    const shown = cited ? message.citations.filter((citation) => citation.tool || citation.memory || cited.has(citation.number)) : message.citations;
    const list = !shown.length ? null : h('ol', { class: 'citations', 'aria-label': t('chat.sources') }, shown.map((citation) => {
      if (citation.tool) return h('li', { class: citation.tool.isError ? 'tool failed' : 'tool' }, toolSource(item, citation));
      if (citation.memory) return h('li', { class: 'memory' }, memorySource(item, citation));
      const where = [citation.document, citation.page ? t('chat.page', { page: citation.page }) : null, citation.section?.length ? citation.section.join(' › ') : null]
        .filter(Boolean).join(' · ');
      return h('li', {}, h('details', { id: `${item.dataset.id}-cite-${citation.number}` },
        h('summary', {}, `[${citation.number}] ${where}`),
        h('blockquote', {}, citation.quote)));
    }));
    if (!message.claims?.length) return list ?? h('ol', { class: 'citations', 'aria-label': t('chat.sources') });
    const claims = h('details', { class: 'claims' }, h('summary', {}, t('chat.claims')),
      h('ul', {}, message.claims.map((claim) => h('li', { class: claim.citations.length ? 'supported' : 'unsupported' },
        // The sentence without its own references: the sources that support it follow.
        h('span', { class: 'claim-text' }, claim.text.replace(/\s*\[\d+(?:\s*,\s*\d+)*\]/g, '')), ' ',
        h('span', { class: 'claim-sources' }, claim.citations.length ? claim.citations.map((number) => `[${number}]`).join(' ') : t('chat.claimUnsupported'))))));
    return h('div', { class: 'citations-block' }, list, claims);
  }

  /** A tool call among an answer's sources: which tool, with what, and (opened) what it returned. */
  function toolSource(item, citation) {
    const tool = citation.tool;
    return h('details', { id: `${item.dataset.id}-cite-${citation.number}` },
      h('summary', {}, `[${citation.number}] `, h('span', { class: 'tool-label' }, t(tool.isError ? 'chat.toolFailed' : 'chat.tool')), ' ',
        toolTitle(tool), ' ', h('code', {}, tool.arguments)),
      h('blockquote', {}, citation.quote));
  }

  /** A fact from the user's memory among an answer's sources: the fact itself, and where it is kept. */
  function memorySource(item, citation) {
    return h('details', { id: `${item.dataset.id}-cite-${citation.number}` },
      h('summary', {}, `[${citation.number}] `, h('span', { class: 'tool-label' }, t('chat.memory')), ' ', h('span', { class: 'memory-fact-text' }, citation.quote)),
      h('p', { class: 'memory-origin' }, t('chat.fromMemory'), ' ', h('a', { href: '#/memory' }, t('chat.openMemory'))));
  }

  /** While an answer is written: the tools it calls, each marked when it has answered. */
  function showToolCall(item, tool) {
    const list = item.querySelector('.tool-activity') ?? item.insertBefore(h('ul', { class: 'tool-activity', 'aria-live': 'polite' }), item.querySelector('.body'));
    list.append(h('li', { class: 'calling' }, t('chat.toolCalling', { tool: toolTitle(tool) }), ' ', h('code', {}, tool.arguments)));
  }

  /** A tool in words: `weather › forecast`, as the server names it. */
  function toolTitle(tool) {
    return tool.server ? `${tool.server} › ${tool.name}` : tool.name;
  }

  function showToolAnswer(item, citation) {
    const entry = item.querySelector('.tool-activity li.calling');
    if (!entry) return;
    entry.className = citation.tool?.isError ? 'failed' : 'answered';
    entry.append(' ', h('span', { class: 'tool-outcome' }, citation.tool?.isError ? t('chat.toolCallFailed') : `[${citation.number}]`));
  }

  /** Turns `[n]` in an answer into buttons that open source n. */
  function linkCitations(body, item) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) if (/\[\d+\]/.test(walker.currentNode.nodeValue)) nodes.push(walker.currentNode);
    for (const node of nodes) {
      if (node.parentElement?.closest('code, pre')) continue;
      const parts = node.nodeValue.split(/(\[\d+\])/);
      node.replaceWith(...parts.map((part) => {
        const match = /^\[(\d+)\]$/.exec(part);
        const details = match && item.querySelector(`[id="${item.dataset.id}-cite-${match[1]}"]`);
        if (!details) return part;
        return h('button', { type: 'button', class: 'cite', 'aria-label': t('chat.openSource', { number: match[1] }), onclick: () => {
          details.open = true;
          details.querySelector('summary').focus();
        } }, `[${match[1]}]`);
      }));
    }
  }

  function showMessages(list) {
    messages.replaceChildren(...list.filter((m) => m.role !== 'system').map(bubble));
    showConversation();
    messages.lastElementChild?.scrollIntoView({ block: 'end' });
  }

  // Answers.

  /** Plays spoken audio in the answer's bubble, with the player's own controls. */
  function play(url, item) {
    item.querySelector('audio')?.remove();
    const audio = h('audio', { src: url, controls: true, autoplay: true, 'aria-label': t('chat.spokenAnswer') });
    item.append(audio);
    audio.play().catch(() => {});
    return audio;
  }

  /**
   * Plays an answer's sentences in order as they arrive (the server speaks each as soon as it is
   * written), in one player in the answer's bubble; once the whole answer's audio is known, the
   * player holds that, for listening again.
   */
  function sentencePlayer(item, voice) {
    item.querySelector('audio')?.remove();
    const audio = h('audio', { controls: true, 'aria-label': t('chat.spokenAnswer') });
    item.append(audio);
    const queue = [];
    let current = null;
    let whole = null;
    let finished = false;
    const onIdle = [];
    const idle = () => {
      if (whole && audio.src !== whole) audio.src = whole;
      for (const callback of onIdle.splice(0)) callback();
    };
    const next = () => {
      if (current) URL.revokeObjectURL(current);
      current = queue.shift() ?? null;
      if (!current) {
        if (finished) idle();
        return;
      }
      audio.src = current;
      audio.play().catch(() => { current = null; queue.length = 0; idle(); });
    };
    audio.addEventListener('playing', () => { if (voice && !voice.firstAudioAt) voice.firstAudioAt = performance.now(); });
    audio.addEventListener('ended', () => { if (current) next(); });
    return {
      add(sentence) {
        const bytes = Uint8Array.from(atob(sentence.audio), (c) => c.charCodeAt(0));
        queue.push(URL.createObjectURL(new Blob([bytes], { type: sentence.mimeType })));
        if (!current) next();
      },
      /** Every sentence has come; `url` is the whole answer's audio. */
      end(url) {
        finished = true;
        whole = url ?? whole;
        if (!current) idle();
      },
      /** Barge-in: the rest is not played. */
      stop() {
        queue.splice(0).forEach((url) => URL.revokeObjectURL(url));
        finished = true;
        audio.pause();
        if (current) URL.revokeObjectURL(current);
        current = null;
        idle();
      },
      get playing() { return current !== null; },
      /** Calls `callback` once nothing is left to play. */
      whenIdle(callback) {
        if (finished && !current) callback();
        else onIdle.push(callback);
      },
    };
  }

  /** The stages of a spoken question, from the end of speech, in the question's bubble (opened on request). */
  function showTimings(voice) {
    if (!voice.speechEndedAt) return;
    const since = (at) => (at ? `${((at - voice.speechEndedAt) / 1000).toFixed(2)} s` : '–');
    const server = voice.stages ?? {};
    const text = t('chat.timingsLine', {
      transcript: since(voice.transcribedAt), firstToken: since(voice.firstTokenAt), firstAudio: since(voice.firstAudioAt),
    });
    const serverText = t('chat.timingsServer', { receive: server.receive ?? 0, decode: server.decode ?? 0, transcribe: server.transcribe ?? 0 });
    voice.own.querySelector('details.timings')?.remove();
    voice.own.append(h('details', { class: 'timings' }, h('summary', {}, t('chat.timings')), h('p', {}, text), h('p', {}, serverText)));
  }

  /** Streams an answer's events (a response's server-sent events, or a live voice socket's) into `item` until the answer ends. */
  async function follow(response, item, voice = null) {
    const events = response instanceof WebSocket ? socketEvents(response) : serverEvents(response);
    let text = '';
    let frame = null;
    const body = item.querySelector('.body');
    setBusy(true);
    try {
      for await (const { type, data } of events) {
        switch (type) {
          case 'listening':
            break;
          case 'partial':
            // The words as they form, while the person speaks.
            if (voice) voice.own.querySelector('.body').textContent = data.text;
            break;
          case 'noSpeech':
            if (voice) voice.noSpeech = true;
            return;
          case 'error':
            throw new Error(data.message);
          case 'started':
            if (data.answerId) item.dataset.id = data.answerId;
            markSent(data.questionId);
            break;
          case 'delta':
            if (voice && !voice.firstTokenAt) voice.firstTokenAt = performance.now();
            text += data.text ?? '';
            if (!frame) {
              frame = requestAnimationFrame(() => {
                frame = null;
                renderMarkdown(body, text, { final: false });
                item.scrollIntoView({ block: 'end' });
              });
            }
            break;
          case 'finished':
          case 'failed':
          case 'cancelled':
            if (frame) cancelAnimationFrame(frame);
            frame = null;
            if (data.message) fill(item, data.message);
            else fill(item, { role: 'assistant', text, status: type === 'finished' ? 'complete' : type, error: data.error, citations: [] });
            release(item);
            break;
          case 'declined':
            fill(item, { role: 'assistant', text: data.answer, status: 'declined', citations: [] });
            release(item);
            break;
          case 'toolCalled':
            showToolCall(item, data.tool);
            break;
          case 'toolAnswered':
            showToolAnswer(item, data.citation);
            break;
          case 'titled':
            if (state.conversation) state.conversation.title = data.title;
            showConversation();
            loadList();
            break;
          case 'transcript':
            if (voice) {
              voice.transcribedAt = performance.now();
              voice.server = data.timingsMs ?? null;
              voice.heard?.();
              // Live, the server heard the end of speech: its transcript came `transcribe` ms after it.
              if (voice.live) voice.speechEndedAt = voice.transcribedAt - (data.timingsMs?.transcribe ?? 0);
              voice.own.querySelector('.body').textContent = data.text;
            }
            break;
          case 'spoken':
            if (voice) {
              voice.player ??= sentencePlayer(item, voice);
              voice.player.add(data);
            }
            break;
          case 'speechFailed':
            toast(data.error);
            break;
          case 'speech':
            if (voice) voice.speechURL = data.url;
            if (voice?.player) voice.player.end(data.url);
            else if (autoplay.checked && data.url) play(data.url, item);
            break;
          case 'timings':
            if (voice) {
              voice.stages = data;
              voice.player?.end(null);
              // The first sentence may start playing after the last event: the figures wait for it.
              if (voice.player && !voice.firstAudioAt) voice.player.whenIdle(() => showTimings(voice));
              showTimings(voice);
            }
            break;
          case 'usage':
          case 'historyTrimmed':
          default:
            break;
        }
      }
    } finally {
      if (frame) cancelAnimationFrame(frame);
      release(item);
    }
  }

  /**
   * The answer in `item` is over: the composer is free for the next question, while the rest of
   * its stream (the title, the spoken answer) still arrives.
   */
  function release(item) {
    if (state.streaming !== item) return;
    state.streaming = null;
    setBusy(false);
    refreshRetry();
  }

  /** The question the server took: no longer "sending". */
  function markSent(id) {
    for (const item of messages.querySelectorAll('.bubble.own[data-status="sending"]')) {
      fill(item, { ...item.message, text: item.querySelector('.body').textContent, id: id ?? item.message?.id, status: 'complete' });
    }
  }

  /** Only the last answer offers Retry. */
  function refreshRetry() {
    for (const item of messages.querySelectorAll('.bubble.answer')) {
      const last = item === messages.lastElementChild;
      const hasRetry = item.querySelector('.meta button:not(.quiet)');
      if (!last && hasRetry) hasRetry.remove();
    }
  }

  async function ensureConversation() {
    if (state.conversation) return state.conversation;
    if (mode.value === 'translator' && !target.value.trim()) throw new Error(t('chat.needTarget'));
    state.conversation = await api('/conversations', { method: 'POST', body: chosenOptions() });
    // The model picked before the conversation existed is now its own.
    localStorage.removeItem(modelKey(null));
    rememberModel();
    history.replaceState(null, '', `#/chat/${state.conversation.id}`);
    showConversation();
    return state.conversation;
  }

  /** A request for an answer failed: shown in its bubble, unless the answer had already ended. */
  function failedBubble(item, error) {
    if (state.streaming !== item) return;
    fill(item, { role: 'assistant', text: '', status: 'failed', error: error.message, citations: [] });
    release(item);
  }

  /** What each answer asks for beside the question, when chosen: the answer's language and the model. */
  function answerFields() {
    const fields = {};
    if (answerLanguage.value) fields.answerLanguage = answerLanguage.value;
    if (model.value) fields.model = model.value;
    return fields;
  }

  /**
   * Shows a question being sent and its answer pending (with `pending` text), clears the question
   * box, and marks the page busy with that answer; returns the answer's bubble.
   */
  function startExchange(own, pending = '') {
    const answer = bubble({ role: 'assistant', text: pending, status: 'pending', createdAt: new Date().toISOString(), citations: [] });
    messages.append(own, answer);
    empty.hidden = true;
    question.value = '';
    answer.scrollIntoView({ block: 'end' });
    state.streaming = answer;
    setBusy(true);
    return answer;
  }

  /** "/draw PROMPT": the image model draws into this conversation; the images are kept and shown. */
  async function draw(prompt) {
    const answer = startExchange(bubble({ role: 'user', text: prompt, status: 'sending', createdAt: new Date().toISOString() }), t('chat.drawing'));
    try {
      const conversation = await ensureConversation();
      await api('/images', { method: 'POST', body: { prompt, conversationId: conversation.id } });
      release(answer);
      await openConversation(conversation.id);
      loadList();
    } catch (error) {
      failedBubble(answer, error);
    } finally {
      if (state.streaming === answer) release(answer);
      question.focus();
    }
  }

  async function ask() {
    const text = question.value.trim();
    if (!text || state.streaming) return;
    const drawing = text.match(/^\/draw\s+([\s\S]+)/);
    if (drawing && !attachment) {
      await draw(drawing[1].trim());
      return;
    }
    const image = attachment;
    attachment = null;
    attached.hidden = true;
    const answer = startExchange(bubble({ role: 'user', text, status: 'sending', createdAt: new Date().toISOString(),
      attachments: image ? [{ kind: 'image', url: `data:${image.mimeType};base64,${image.data}`, filename: image.filename }] : [] }));
    try {
      const conversation = await ensureConversation();
      const body = { text, ...answerFields() };
      if (documents.checked) body.documents = {};
      if (image) body.attachments = [image];
      const response = await api(`/conversations/${conversation.id}/turns`, { method: 'POST', body, raw: true });
      await follow(response, answer);
      loadList();
    } catch (error) {
      markSent();
      failedBubble(answer, error);
      if (error instanceof ApiError && error.status === 401) location.reload();
    } finally {
      if (state.streaming === answer) state.streaming = null;
      question.focus();
    }
  }

  async function retry() {
    if (!state.conversation || state.streaming) return;
    const last = messages.lastElementChild;
    if (last?.classList.contains('answer')) last.remove();
    const answer = bubble({ role: 'assistant', text: '', status: 'pending', createdAt: new Date().toISOString(), citations: [] });
    messages.append(answer);
    state.streaming = answer;
    try {
      const body = answerFields();
      if (documents.checked) body.documents = {};
      const response = await api(`/conversations/${state.conversation.id}/retry`, { method: 'POST', body, raw: true });
      await follow(response, answer);
    } catch (error) {
      failedBubble(answer, error);
    } finally {
      if (state.streaming === answer) state.streaming = null;
    }
  }

  async function stop() {
    if (!state.conversation) return;
    try {
      await api(`/conversations/${state.conversation.id}/turns/current`, { method: 'DELETE' });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) toast(error.message);
    }
  }

  // Speaking a question.

  let recorder = null;

  async function voiceOptions() {
    const options = { thresholdDb: -45, hangoverMs: 1200, onsetMs: 120, waitMs: 10000, maxMs: 30000 };
    try {
      const settings = Object.fromEntries((await api('/settings')).map((s) => [s.key, s.value ?? s.defaultValue]));
      const number = (key, fallback) => (Number.isFinite(Number(settings[key])) ? Number(settings[key]) : fallback);
      options.thresholdDb = number('voice.threshold_db', options.thresholdDb);
      options.onsetMs = number('voice.onset_ms', options.onsetMs);
      options.hangoverMs = number('voice.hangover_ms', options.hangoverMs);
      options.waitMs = number('voice.wait_seconds', 10) * 1000;
      options.maxMs = number('voice.max_seconds', 30) * 1000;
    } catch {
      // The defaults do.
    }
    return options;
  }

  function recording(on) {
    micButton.textContent = on ? t('chat.stopRecording') : t('chat.speak');
    micButton.setAttribute('aria-pressed', on ? 'true' : 'false');
    micButton.classList.toggle('recording', on);
    level.hidden = !on;
    question.disabled = on;
    sendButton.disabled = on;
  }

  /**
   * Hands-free: the next question is listened for at once. While the answer is still being
   * spoken, speaking over it (barge-in) stops it; once it has been spoken, the usual wait for
   * speech begins.
   */
  function listenAgain(voice) {
    if (recorder || state.streaming) return;
    const player = voice.player;
    toggleVoice({
      whilePlaying: player?.playing ? player : null,
    });
  }

  async function toggleVoice(handsFreeTurn = null) {
    if (recorder) {
      recorder.stop();
      return;
    }
    if (state.streaming) return;
    const player = handsFreeTurn?.whilePlaying ?? null;
    // A new question is heard live; one spoken over an answer is recorded from its first sound.
    if (!player) {
      try {
        if (await askLive()) return;
      } catch (error) {
        toast(error.name === 'NotAllowedError' ? t('chat.micDenied') : error.message);
        return;
      }
    }
    const options = await voiceOptions();
    const waitMs = options.waitMs;
    // While the answer plays, the wait for speech does not run out.
    if (player) options.waitMs = 30 * 60 * 1000;
    const current = new SpeechRecorder(options, (db, state) => {
      level.value = Math.max(-80, Math.min(0, db));
      if (player?.playing && state === 'speaking') {
        player.stop();
        window.sibylBargedIn = (window.sibylBargedIn ?? 0) + 1;
      }
    });
    recorder = current;
    player?.whenIdle(() => current.waitFromNow(waitMs));
    recording(true);
    try {
      const result = await recorder.record();
      recorder = null;
      recording(false);
      if (!result.spoke) {
        toast(t('chat.noSpeech'));
        return;
      }
      await askByVoice(result);
    } catch (error) {
      toast(error.name === 'NotAllowedError' ? t('chat.micDenied') : error.message);
    } finally {
      recorder = null;
      recording(false);
    }
  }

  async function askByVoice(result) {
    const stoppedAt = performance.now();
    const own = bubble({ role: 'user', text: t('chat.transcribing'), status: 'sending', createdAt: new Date().toISOString() });
    const answer = bubble({ role: 'assistant', text: '', status: 'pending', createdAt: new Date().toISOString(), citations: [] });
    messages.append(own, answer);
    empty.hidden = true;
    state.streaming = answer;
    setBusy(true);
    const voice = { own, speechEndedAt: result.speechEndedAt, stoppedAt, mimeType: result.mimeType, bytes: result.blob.size };
    // For the page's tests and the curious: where the time went after the speaker stopped.
    window.sibylLastVoice = voice;
    try {
      const [conversation, wav] = await Promise.all([ensureConversation(), speechWAV(result.blob, result.speech)]);
      voice.preparedAt = performance.now();
      voice.sent = wav ? 'audio/wav' : result.mimeType;
      voice.sentBytes = wav ? wav.size : result.blob.size;
      const form = new FormData();
      if (wav) form.append('file', wav, 'question.wav');
      else form.append('file', result.blob, `question.${extensionFor(result.mimeType)}`);
      if (documents.checked) form.append('documents', 'true');
      for (const [name, value] of Object.entries(answerFields())) form.append(name, value);
      // The page's language, which the server takes as the spoken one unless voice.language says otherwise.
      form.append('languageHint', language());
      // Each sentence of the answer spoken as soon as it is written, not the whole answer at the end.
      if (autoplay.checked) form.append('speak', 'sentences');
      const response = await api(`/conversations/${conversation.id}/voice`, { method: 'POST', body: form, raw: true });
      voice.respondedAt = performance.now();
      await follow(response, answer, voice);
      loadList();
      if (handsFree.checked) listenAgain(voice);
    } catch (error) {
      markSent();
      failedBubble(answer, error);
    } finally {
      if (state.streaming === answer) state.streaming = null;
    }
  }

  /** A live voice socket's messages as {type, data}, until it closes. */
  async function* socketEvents(socket) {
    const queue = [];
    let wake = null;
    let closed = false;
    socket.addEventListener('message', (event) => {
      try {
        const message = JSON.parse(event.data);
        queue.push({ type: message.event, data: message.data ?? {} });
      } catch {
        // Not ours: ignored.
      }
      wake?.();
    });
    socket.addEventListener('close', () => { closed = true; wake?.(); });
    while (true) {
      if (queue.length) {
        yield queue.shift();
      } else if (closed) {
        return;
      } else {
        await new Promise((resolve) => { wake = resolve; });
        wake = null;
      }
    }
  }

  /**
   * What takes the microphone's sound in blocks of 16-bit PCM for the live socket: an
   * AudioWorklet on the audio thread, which loses nothing when the page is busy; where a browser
   * has none, a ScriptProcessorNode. Set `onBlock(pcm, decibels)`; connect a source to `node`.
   */
  async function microphoneTaker(context) {
    const taker = { onBlock: () => {} };
    if (context.audioWorklet && typeof AudioWorkletNode !== 'undefined') {
      await context.audioWorklet.addModule(new URL('./microphone-worklet.js', import.meta.url));
      const node = new AudioWorkletNode(context, 'sibyl-microphone-blocks', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
      node.port.onmessage = (event) => taker.onBlock(event.data.pcm, event.data.decibels);
      taker.node = node;
      taker.stop = () => { node.port.postMessage('end'); node.disconnect(); };
      return taker;
    }
    const node = context.createScriptProcessor(1024, 1, 1);
    node.onaudioprocess = (event) => {
      const input = event.inputBuffer.getChannelData(0);
      const pcm = new Int16Array(input.length);
      for (let i = 0; i < input.length; i += 1) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(input[i] * 32767)));
      taker.onBlock(pcm.buffer, decibels(input));
    };
    taker.node = node;
    taker.stop = () => node.disconnect();
    return taker;
  }

  /** Opens the live voice socket for `conversation`; null when it cannot be opened. */
  function openLiveSocket(conversation) {
    const params = new URLSearchParams({ languageHint: language() });
    if (autoplay.checked) params.set('speak', 'sentences');
    if (documents.checked) params.set('documents', 'true');
    for (const [name, value] of Object.entries(answerFields())) params.set(name, value);
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}/api/v1/conversations/${encodeURIComponent(conversation.id)}/voice/live?${params}`);
    socket.binaryType = 'arraybuffer';
    return new Promise((resolve) => {
      socket.addEventListener('open', () => resolve(socket), { once: true });
      socket.addEventListener('error', () => resolve(null), { once: true });
    });
  }

  /**
   * Asks by voice, live: the microphone's sound goes to the server as it is recorded (16 kHz,
   * 16-bit), which hears where the question ends, shows the words as they form and answers at
   * once. False when the live path is not available here (then the recording is uploaded whole).
   */
  async function askLive() {
    if (typeof WebSocket === 'undefined' || typeof AudioContext === 'undefined') return false;
    const conversation = await ensureConversation();
    const socket = await openLiveSocket(conversation);
    if (!socket) return false;
    // The audio graph is ready before the microphone opens, so the first words are not lost
    // while it is being built.
    const context = new AudioContext({ sampleRate: 16000 });
    let stream;
    let taker;
    try {
      taker = await microphoneTaker(context);
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    } catch (error) {
      context.close();
      socket.close();
      throw error;
    }
    const source = context.createMediaStreamSource(stream);
    let sending = true;
    const stopMicrophone = () => {
      if (!sending) return;
      sending = false;
      taker.stop();
      source.disconnect();
      for (const track of stream.getTracks()) track.stop();
      context.close();
      recorder = null;
      recording(false);
    };
    taker.onBlock = (pcm, db) => {
      if (!sending) return;
      level.value = Math.max(-80, Math.min(0, db));
      if (socket.readyState === WebSocket.OPEN) socket.send(pcm);
    };
    source.connect(taker.node);
    taker.node.connect(context.destination);
    recorder = { stop: () => { if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'stop' })); } };
    recording(true);
    const own = bubble({ role: 'user', text: t('chat.listening'), status: 'sending', createdAt: new Date().toISOString() });
    const answer = bubble({ role: 'assistant', text: '', status: 'pending', createdAt: new Date().toISOString(), citations: [] });
    messages.append(own, answer);
    empty.hidden = true;
    state.streaming = answer;
    setBusy(true);
    const voice = { own, live: true, heard: stopMicrophone };
    window.sibylLastVoice = voice;
    try {
      await follow(socket, answer, voice);
      if (voice.noSpeech) {
        own.remove();
        answer.remove();
        toast(t('chat.noSpeech'));
        return true;
      }
      loadList();
      if (handsFree.checked) listenAgain(voice);
    } catch (error) {
      markSent();
      failedBubble(answer, error);
    } finally {
      stopMicrophone();
      socket.close();
      if (state.streaming === answer) state.streaming = null;
      setBusy(false);
    }
    return true;
  }

  // Rename and delete, in a dialog.

  function openDialog(titleKey, content, confirmKey, onConfirm, danger = false) {
    const error = h('p', { class: 'error', role: 'alert' });
    const confirm = h('button', { type: 'submit', class: danger ? 'danger' : null, i18n: confirmKey });
    const form = h('form', { method: 'dialog', onsubmit: async (event) => {
      event.preventDefault();
      try {
        await onConfirm();
        dialog.close();
      } catch (failure) {
        error.textContent = failure.message;
      }
    } }, content, error, h('div', { class: 'row end' },
      h('button', { type: 'button', class: 'quiet', i18n: 'dialog.cancel', onclick: () => dialog.close() }), confirm));
    dialog.replaceChildren(h('h2', { id: 'dialog-title', i18n: titleKey }), form);
    dialog.setAttribute('aria-labelledby', 'dialog-title');
    translate(dialog);
    dialog.showModal();
  }

  function rename() {
    const input = h('input', { id: 'new-title', type: 'text', value: state.conversation?.title ?? '' });
    openDialog('chat.renameTitle', field('chat.newTitle', input), 'chat.save', async () => {
      state.conversation = await api(`/conversations/${state.conversation.id}`, { method: 'PATCH', body: { title: input.value } });
      showConversation();
      loadList();
    });
    input.select();
  }

  function remove() {
    openDialog('chat.deleteTitle', h('p', {}, t('chat.deleteWarning', { title: state.conversation?.title || t('chat.untitled') })), 'chat.delete', async () => {
      await api(`/conversations/${state.conversation.id}`, { method: 'DELETE' });
      location.hash = '#/chat';
    }, true);
  }

  /** Shows a conversation's messages as stored, following the answer being written, if any, as it comes. */
  async function openConversation(id) {
    const detail = await api(`/conversations/${encodeURIComponent(id)}`);
    state.conversation = detail.conversation;
    showModel();
    showMessages(detail.messages);
    if (detail.conversation.answering && !state.following) {
      const pending = [...messages.querySelectorAll('.bubble.answer')].pop() ?? messages.appendChild(bubble({ role: 'assistant', text: '', status: 'pending', citations: [] }));
      state.following = true;
      api(`/conversations/${id}/turns/current`, { raw: true })
        .then((response) => follow(response, pending)).catch(() => {})
        .finally(() => { state.following = false; });
    }
  }

  // What changes elsewhere (a question asked on the glasses or in another tab) shows at once: the
  // list, and the open conversation unless this page is the one writing or following its answer.
  onLiveEvent(messages, async ({ type, data }) => {
    if (type !== 'conversation' && type !== 'message') return;
    loadList();
    const open = state.conversation?.id;
    if (!open || state.streaming || state.following) return;
    try {
      if (type === 'conversation' && data.id === open) {
        if (data.change === 'deleted') {
          location.hash = '#/chat';
          return;
        }
        // Renamed, or given another persona or mode: the header shows it.
        state.conversation = (await api(`/conversations/${encodeURIComponent(open)}`)).conversation;
        showConversation();
      } else if (type === 'message' && data.conversationId === open) {
        // A message this page does not show yet (asked elsewhere), or one it shows that is gone.
        const shown = messages.querySelector(`[data-id="${data.id}"]`) !== null;
        if ((data.change === 'created' && !shown) || (data.change === 'deleted' && shown)) {
          await openConversation(open);
          showConversation();
        }
      }
    } catch {
      // Gone meanwhile: the next event or a reload shows what is there.
    }
  });

  // Start.
  await Promise.all([loadPersonas(), loadModels()]);
  if (id) {
    try {
      await openConversation(id);
    } catch (error) {
      toast(error.message);
      history.replaceState(null, '', '#/chat');
    }
  }
  showConversation();
  loadList();
  question.focus();
}

