// The Settings card for tools answers may call: the user's MCP servers (tools.servers, set on the
// server's machine with `sibyl tools add`), whether answers use them (tools.enabled), and a check
// that reaches each server and lists the tools it offers or why it offers none.

import { api } from './api.js';
import { h } from './dom.js';
import { t, tn } from './i18n.js';

/**
 * The tools card.
 * @param {{toast: Function, admin: boolean}} page
 * @returns {HTMLElement}
 */
export function toolsCard({ toast, admin }) {
  const enabled = h('input', { id: 'tools-enabled', type: 'checkbox', disabled: !admin });
  const servers = h('ul', { class: 'plain-list tool-servers' });
  const status = h('p', { role: 'status' });
  const checkButton = h('button', { type: 'button', class: 'quiet', i18n: 'settings.tools.check', onclick: check });

  enabled.addEventListener('change', async () => {
    try {
      await api('/settings/tools.enabled', { method: 'PUT', body: { value: enabled.checked ? 'on' : 'off' } });
      toast(t('settings.saved'));
    } catch (error) {
      enabled.checked = !enabled.checked;
      toast(error.message);
    }
  });

  /** The servers as the setting names them, without reaching them. */
  async function load() {
    try {
      const [on, list] = await Promise.all([api('/settings/tools.enabled'), api('/settings/tools.servers')]);
      enabled.checked = on.value === 'on';
      const entries = (list.value ?? '').split(';').map((entry) => entry.trim()).filter(Boolean);
      servers.replaceChildren(...entries.map((entry) => {
        const [name, ...rest] = entry.split('=');
        return h('li', {}, h('strong', {}, name.trim()), ' ', h('code', {}, rest.join('=').trim()));
      }));
      status.textContent = entries.length ? '' : t('settings.tools.none');
      checkButton.hidden = !entries.length;
    } catch (error) {
      status.textContent = error.message;
    }
  }

  /** Reaches every server and shows the tools each offers now, or why it offers none. */
  async function check() {
    checkButton.disabled = true;
    status.textContent = t('settings.tools.checking');
    try {
      const report = await api('/tools');
      servers.replaceChildren(...report.servers.map((server) => h('li', { class: server.problem ? 'failed' : 'ok' },
        h('strong', {}, server.name), ' ', h('code', {}, server.target),
        server.problem
          ? h('p', { class: 'error' }, t('settings.tools.unreachable', { problem: server.problem }))
          : h('ul', {}, server.tools.map((tool) => h('li', {}, h('code', {}, tool.name), ' — ', tool.description))))));
      const failing = report.servers.filter((server) => server.problem).length;
      status.textContent = failing ? tn('settings.tools.someUnreachable', failing) : t('settings.tools.allReached');
    } catch (error) {
      status.textContent = error.message;
    } finally {
      checkButton.disabled = false;
    }
  }

  load();
  return h('section', { class: 'card', 'aria-labelledby': 'tools-title' },
    h('h2', { id: 'tools-title', i18n: 'settings.tools.title' }),
    h('p', { class: 'hint', i18n: 'settings.tools.hint' }),
    h('label', { class: 'switch', htmlFor: 'tools-enabled' }, enabled, h('span', { i18n: 'settings.tools.enabled' })),
    servers, status, checkButton);
}
