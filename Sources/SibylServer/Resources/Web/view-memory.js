// The memory: facts about the user that answers may use. Those Sibyl proposed from a conversation
// wait to be accepted (or forgotten); those accepted, or written here, are remembered until
// forgotten. Each says where it came from, with a link to its conversation when there is one.

import { api, onLiveEvent } from './api.js';
import { h } from './dom.js';
import { formatDate, t, tn } from './i18n.js';

/**
 * Shows the memory page.
 * @param {{show: Function, toast: Function, who: any}} page
 */
export async function renderMemory({ show, toast, who }) {
  const text = h('input', { id: 'memory-text', type: 'text', autocomplete: 'off', i18nPlaceholder: 'memory.example', 'aria-describedby': 'memory-text-hint memory-error' });
  const rememberButton = h('button', { type: 'submit', i18n: 'memory.remember' });
  const error = h('p', { class: 'error', id: 'memory-error', role: 'alert' });
  const form = h('form', { class: 'memory-form', onsubmit: (event) => { event.preventDefault(); remember(); } },
    h('label', { htmlFor: 'memory-text', i18n: 'memory.factLabel' }),
    h('div', { class: 'row' }, text, rememberButton),
    h('p', { class: 'hint', id: 'memory-text-hint', i18n: 'memory.factHint' }),
    error);
  const proposed = section('proposed');
  const accepted = section('accepted');
  const problem = h('p', { class: 'error', role: 'alert' });

  show(
    h('h1', { i18n: 'memory.title' }),
    h('p', { class: 'hint memory-intro', i18n: 'memory.intro' }),
    problem,
    h('section', { class: 'card', 'aria-labelledby': 'memory-add-title' }, h('h2', { id: 'memory-add-title', i18n: 'memory.add' }), form),
    proposed.card,
    accepted.card,
    learningCard({ toast, admin: Boolean(who?.local || who?.role === 'admin') }));

  /** A card for the facts of one status: its heading with how many, a line on what they are, the list. */
  function section(status) {
    const count = h('span', { class: 'badge' });
    const heading = h('h2', { id: `memory-${status}-title`, tabindex: '-1' }, h('span', { i18n: `memory.${status}` }), ' ', count);
    const list = h('ul', { class: 'plain-list memory-facts', 'aria-labelledby': heading.id });
    const empty = h('p', { class: 'hint memory-empty', i18n: `memory.${status}Empty`, hidden: true });
    const card = h('section', { class: 'card', 'aria-labelledby': heading.id, 'data-status': status },
      heading, h('p', { class: 'hint', i18n: `memory.${status}Hint` }), list, empty);
    return { card, heading, count, list, empty };
  }

  /** One fact: its words, when and where it came from, and what can be done with it. */
  function factItem(fact) {
    const source = fact.conversationId
      ? h('a', { href: `#/chat/${encodeURIComponent(fact.conversationId)}` }, t('memory.fromConversation'))
      : h('span', {}, t(writtenByUser(fact) ? 'memory.writtenByYou' : 'memory.fromDeletedConversation'));
    const buttons = [];
    if (fact.status === 'proposed') {
      buttons.push(h('button', { type: 'button', class: 'small', 'aria-label': t('memory.acceptNamed', { text: fact.text }), onclick: () => accept(fact) }, t('memory.accept')));
    }
    buttons.push(h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('memory.forgetNamed', { text: fact.text }), onclick: () => forget(fact) }, t('memory.forget')));
    return h('li', { class: 'memory-fact', 'data-id': fact.id },
      h('p', { class: 'memory-text' }, fact.text),
      h('p', { class: 'memory-meta' }, h('time', { datetime: fact.createdAt }, formatDate(fact.createdAt)), ' · ', source),
      h('div', { class: 'row memory-actions' }, buttons));
  }

  /**
   * Whether the user wrote a fact here (or with `sibyl memory add`): it has no conversation and was
   * accepted the moment it was made. A proposed one, or one accepted later, whose conversation is
   * gone came from a conversation since deleted.
   */
  function writtenByUser(fact) {
    return fact.status === 'accepted' && fact.acceptedAt && new Date(fact.acceptedAt).getTime() === new Date(fact.createdAt).getTime();
  }

  function fill(part, facts) {
    part.list.replaceChildren(...facts.map(factItem));
    part.list.hidden = !facts.length;
    part.empty.hidden = facts.length > 0;
    part.count.textContent = tn('memory.factCount', facts.length);
  }

  async function refresh() {
    try {
      const facts = await api('/memory');
      problem.textContent = '';
      fill(proposed, facts.filter((fact) => fact.status === 'proposed'));
      fill(accepted, facts.filter((fact) => fact.status === 'accepted'));
    } catch (failure) {
      problem.textContent = failure.message;
    }
  }

  /** Remembers what was typed; on failure the words stay, with the server's reason beside them. */
  async function remember() {
    const words = text.value.trim();
    if (!words) {
      error.textContent = t('memory.needText');
      text.focus();
      return;
    }
    rememberButton.disabled = true;
    try {
      await api('/memory', { method: 'POST', body: { text: words } });
      error.textContent = '';
      text.removeAttribute('aria-invalid');
      text.value = '';
      toast(t('memory.didRemember'));
      await refresh();
    } catch (failure) {
      error.textContent = failure.message;
      text.setAttribute('aria-invalid', 'true');
    } finally {
      rememberButton.disabled = false;
      text.focus();
    }
  }

  async function accept(fact) {
    try {
      await api(`/memory/${encodeURIComponent(fact.id)}/accept`, { method: 'POST' });
      toast(t('memory.didAccept', { text: fact.text }));
      await refresh();
      afterChange(proposed);
    } catch (failure) {
      toast(failure.message);
    }
  }

  async function forget(fact) {
    const part = fact.status === 'proposed' ? proposed : accepted;
    try {
      await api(`/memory/${encodeURIComponent(fact.id)}`, { method: 'DELETE' });
      toast(t('memory.didForget', { text: fact.text }));
      await refresh();
      afterChange(part);
    } catch (failure) {
      toast(failure.message);
    }
  }

  /** The fact's buttons are gone with it: the focus goes to the list it was in, not to the page's top. */
  function afterChange(part) {
    (part.list.querySelector('button') ?? part.heading).focus();
  }

  // Facts proposed while the page is open (or changed in another tab) show at once.
  onLiveEvent(accepted.list, ({ type }) => { if (type === 'memory') refresh(); });
  await refresh();
}

/**
 * How Sibyl learns: whether it reads quiet conversations for facts (memory.propose), whether what
 * it finds is used at once (memory.auto_accept), and how long a conversation must be quiet first
 * (memory.quiet_minutes). Settings of the whole server: administrators change them, others see them.
 * @param {{toast: Function, admin: boolean}} options
 * @returns {HTMLElement}
 */
function learningCard({ toast, admin }) {
  const propose = h('input', { id: 'memory-propose', type: 'checkbox', disabled: !admin });
  const autoAccept = h('input', { id: 'memory-auto-accept', type: 'checkbox', disabled: !admin });
  const quiet = h('input', { id: 'memory-quiet', type: 'number', min: '0', step: '1', inputmode: 'numeric', disabled: !admin, class: 'narrow' });

  /** Saves one setting (its path under the API); on failure the control shows the value kept. */
  async function save(path, value, undo) {
    try {
      await api(path, { method: 'PUT', body: { value } });
      toast(t('settings.saved'));
    } catch (failure) {
      undo();
      toast(failure.message);
    }
  }
  propose.addEventListener('change', () => save('/settings/memory.propose', propose.checked ? 'on' : 'off', () => { propose.checked = !propose.checked; }));
  autoAccept.addEventListener('change', () => save('/settings/memory.auto_accept', autoAccept.checked ? 'on' : 'off', () => { autoAccept.checked = !autoAccept.checked; }));
  let kept = '';
  quiet.addEventListener('change', () => save('/settings/memory.quiet_minutes', quiet.value, () => { quiet.value = kept; }).then(() => { kept = quiet.value; }));

  (async () => {
    try {
      const [on, auto, minutes] = await Promise.all(['/settings/memory.propose', '/settings/memory.auto_accept', '/settings/memory.quiet_minutes'].map((path) => api(path)));
      propose.checked = on.value === 'on';
      autoAccept.checked = auto.value === 'on';
      quiet.value = kept = minutes.value;
    } catch {
      // The page works without them; the controls stay as drawn.
    }
  })();

  return h('section', { class: 'card memory-learning', 'aria-labelledby': 'memory-learning-title' },
    h('h2', { id: 'memory-learning-title', i18n: 'memory.learning' }),
    h('p', { class: 'hint', i18n: admin ? 'memory.learningHint' : 'memory.learningAdminOnly' }),
    h('label', { class: 'switch', htmlFor: 'memory-propose' }, propose, h('span', { i18n: 'memory.propose' })),
    h('label', { class: 'switch', htmlFor: 'memory-auto-accept' }, autoAccept, h('span', { i18n: 'memory.autoAccept' })),
    h('p', { class: 'field' }, h('label', { htmlFor: 'memory-quiet', i18n: 'memory.quietMinutes' }), ' ', quiet));
}
