// Glasses: connect a Monocle or a Frame through Web Bluetooth, this page carrying its bytes to
// sibyl serve over the relay WebSocket (binary frames: first byte 1 = Monocle's serial, 2 = Monocle's
// data, 3 = Frame; text frames: JSON control messages, the first saying which glasses), and see what the server reports (state, firmware and FPGA versions, update
// progress, the last question and answer, or the live captions); or start the virtual Monocle and see its display here.

import { api, onLiveEvent } from './api.js';
import { h } from './dom.js';
import { formatDate, language, t, translate } from './i18n.js';

const SERIAL = { service: '6e400001-b5a3-f393-e0a9-e50e24dcca9e', rx: '6e400002-b5a3-f393-e0a9-e50e24dcca9e', tx: '6e400003-b5a3-f393-e0a9-e50e24dcca9e' };
const DATA = { service: 'e5700001-7bac-429a-b4ce-57ff900f479d', rx: 'e5700002-7bac-429a-b4ce-57ff900f479d', tx: 'e5700003-7bac-429a-b4ce-57ff900f479d' };
// Frame has one service: packets to it (routed on the glasses by their first byte) and notifications from it.
const FRAME = { service: '7a230001-5475-a6a4-654c-8431f6ad49c4', rx: '7a230002-5475-a6a4-654c-8431f6ad49c4', tx: '7a230003-5475-a6a4-654c-8431f6ad49c4' };
const FRAME_CHANNEL = 3;

// The glasses' bootloader (Monocle's DfuTarg, Frame's "Frame Update"): Nordic's Secure DFU service.
const DFU = { service: 0xfe59, control: '8ec90001-f315-4f60-9fb8-838830daea50', packet: '8ec90002-f315-4f60-9fb8-838830daea50' };
const DFU_CONTROL = 4;
const DFU_PACKET = 5;
// A page cannot read the link's MTU: DFU packets go in pieces that fit any link the bootloader accepts.
const DFU_WRITE_LENGTH = 100;
/** Whether a Bluetooth device is glasses in their bootloader, not the glasses themselves. */
const isBootloader = (device) => /^(dfutarg|frame update)/i.test(device?.name ?? '');

/** One browser-to-glasses link: Bluetooth on one side, the relay WebSocket on the other. */
class BluetoothRelay {
  /**
   * `onState` is told each step in words; `onClosed` once the link has ended, for whatever reason.
   * `captions`: live captions instead of questions (`translateTo`, when given, translates them).
   * `onBootloaderChoice(choose)` is called when the glasses wait in their bootloader and the
   * browser needs the person's click to reach it (`choose` runs in that click), and again with null
   * once it is reached.
   */
  constructor(onState, onClosed, { captions = false, translateTo = '', onBootloaderChoice = () => {} } = {}) {
    this.onState = onState;
    this.onClosed = onClosed;
    this.queue = Promise.resolve();
    this.captions = captions;
    this.translateTo = translateTo;
    this.onBootloaderChoice = onBootloaderChoice;
  }

  /** Connects to `device` (glasses this browser remembers), or to the glasses the person chooses. */
  async connect(device = null) {
    if (!navigator.bluetooth) throw new Error(t('glasses.noBluetooth'));
    if (device) {
      this.device = device;
    } else {
      this.onState(t('glasses.choosing'));
      this.device = await navigator.bluetooth.requestDevice({
        filters: [{ services: [SERIAL.service] }, { namePrefix: 'monocle' }, { services: [FRAME.service] }, { namePrefix: 'Frame' }],
        optionalServices: [SERIAL.service, DATA.service, FRAME.service],
      });
    }
    this.onGone = () => this.glassesLost(t('glasses.bluetoothLost'));
    this.device.addEventListener('gattserverdisconnected', this.onGone);
    this.onState(t('glasses.connectingBluetooth'));
    this.connected = await this.attach();
    // Reached once: losing them from now on is worth reconnecting.
    this.reached = true;
    this.openSocket();
  }

  /** Connects to the glasses' services and turns their notifications on; says which glasses they are. */
  async attach() {
    const server = await this.device.gatt.connect();
    // Connected again (after an update), the browser may hand out the same characteristics: one listener each.
    for (const [characteristic, listener] of this.listeners ?? []) characteristic.removeEventListener('characteristicvaluechanged', listener);
    this.listeners = [];
    const notify = async (service, uuid, channel) => {
      const characteristic = await service.getCharacteristic(uuid);
      const listener = (event) => this.send(channel, bytesOf(event.target.value));
      characteristic.addEventListener('characteristicvaluechanged', listener);
      this.listeners.push([characteristic, listener]);
      await characteristic.startNotifications();
    };
    // Which glasses: the service they offer says (a Monocle has no Frame service, and the reverse).
    const frame = await server.getPrimaryService(FRAME.service).catch(() => null);
    if (frame) {
      this.kind = 'frame';
      this.rx = { [FRAME_CHANNEL]: await frame.getCharacteristic(FRAME.rx) };
      await notify(frame, FRAME.tx, FRAME_CHANNEL);
      // A page cannot read the link's MTU: Sibyl asks Frame for it.
      return { type: 'connected', kind: 'frame' };
    }
    this.kind = 'monocle';
    const serial = await server.getPrimaryService(SERIAL.service);
    const data = await server.getPrimaryService(DATA.service);
    this.rx = { 1: await serial.getCharacteristic(SERIAL.rx), 2: await data.getCharacteristic(DATA.rx) };
    await notify(serial, SERIAL.tx, 1);
    await notify(data, DATA.tx, 2);
    return { type: 'connected', maxWriteLength: 253 };
  }

  /** Opens the relay to Sibyl (naming `update`, when one was staged to install) and reports the glasses. */
  openSocket(update = null) {
    this.onState(t('glasses.connectingSibyl'));
    this.update = update;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = new URLSearchParams({ languageHint: language() });
    if (this.captions) {
      query.set('mode', 'captions');
      if (this.translateTo) query.set('translateTo', this.translateTo);
    }
    if (update) query.set('update', update);
    const socket = new WebSocket(`${scheme}://${location.host}/api/v1/glasses/relay?${query}`);
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify(this.connected));
      this.onState(t('glasses.relaying'));
    });
    socket.addEventListener('message', (event) => { if (this.socket === socket) this.fromSibyl(event.data); });
    socket.addEventListener('close', () => { if (this.socket === socket) this.lost(t('glasses.sibylLost')); });
  }

  /**
   * Installs a staged update: the relay is opened again naming it, and Sibyl, seeing the same
   * glasses anew, installs it through this page.
   */
  install(update) {
    const old = this.socket;
    this.socket = null;
    old?.close();
    this.openSocket(update);
  }

  /** Glasses → Sibyl. */
  send(channel, bytes) {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    const frame = new Uint8Array(bytes.length + 1);
    frame[0] = channel;
    frame.set(bytes, 1);
    this.socket.send(frame);
  }

  sendControl(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /**
   * Sibyl → glasses: writes go out one at a time, in order. Monocle's without response; each of
   * Frame's is one whole packet, written with response so the next waits until the glasses took it.
   * While an update runs, the bootloader's too: its control point with response, its packets without.
   */
  fromSibyl(message) {
    if (typeof message === 'string') {
      const control = JSON.parse(message);
      if (control.type === 'disconnect') this.disconnect();
      if (control.type === 'connect') this.reconnectGlasses();
      if (control.type === 'connectBootloader') this.connectBootloader();
      if (control.type === 'disconnectBootloader') this.releaseBootloader();
      return;
    }
    const frame = new Uint8Array(message);
    const characteristic = frame[0] === DFU_CONTROL || frame[0] === DFU_PACKET ? this.dfu?.[frame[0]] : this.rx?.[frame[0]];
    if (!characteristic) return;
    const payload = frame.slice(1);
    const withResponse = frame[0] === FRAME_CHANNEL || frame[0] === DFU_CONTROL;
    const write = withResponse ? () => characteristic.writeValueWithResponse(payload) : () => characteristic.writeValueWithoutResponse(payload);
    this.queue = this.queue.then(write).catch((error) => this.onState(error.message));
  }

  /**
   * The glasses' link dropped. While an update is under way that is expected (they restart into
   * their bootloader, and again into the new firmware): Sibyl hears it and the relay stays open.
   */
  glassesLost(reason) {
    if (!this.update) {
      this.lost(reason);
      return;
    }
    this.sendControl({ type: 'disconnected', reason });
    this.onState(t('glasses.updateRestarting'));
  }

  /** Sibyl asks for the glasses again (after an update): tried for a while, as they take seconds to restart. */
  async reconnectGlasses() {
    if (!this.update || this.device?.gatt?.connected || this.reconnecting) return;
    this.reconnecting = true;
    try {
      for (let attempt = 0; attempt < 30 && !this.closed; attempt++) {
        try {
          this.connected = await this.attach();
          this.sendControl(this.connected);
          this.onState(t('glasses.relaying'));
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
      // Not back: let go, and the page waits for them as for any lost glasses.
      this.lost(t('glasses.bluetoothLost'));
    } finally {
      this.reconnecting = false;
    }
  }

  /** The install is over: from now on a lost link ends the relay, as on any other. */
  updateFinished() {
    this.update = null;
  }

  /** Sibyl asks for the bootloader: a remembered one is reached at once, else the person chooses it. */
  async connectBootloader() {
    if (this.bootloader?.gatt?.connected) {
      this.sendControl({ type: 'bootloaderConnected', maxWriteLength: DFU_WRITE_LENGTH });
      return;
    }
    const known = ((await navigator.bluetooth.getDevices?.()?.catch(() => [])) ?? []).filter(isBootloader);
    for (const device of known) {
      try {
        await this.attachBootloader(device);
        return;
      } catch {
        // Not in reach (another pair's, or from an earlier update): ask the person.
      }
    }
    this.onState(t('glasses.bootloaderWaiting'));
    this.onBootloaderChoice(async () => {
      try {
        const device = await navigator.bluetooth.requestDevice({
          filters: [{ services: [DFU.service] }, { name: 'DfuTarg' }, { namePrefix: 'Frame Update' }],
          optionalServices: [DFU.service],
        });
        await this.attachBootloader(device);
      } catch (error) {
        this.sendControl({ type: 'bootloaderDisconnected', reason: error.message });
      }
    });
  }

  async attachBootloader(device) {
    const server = await device.gatt.connect();
    const service = await server.getPrimaryService(DFU.service);
    const control = await service.getCharacteristic(DFU.control);
    const packet = await service.getCharacteristic(DFU.packet);
    if (this.dfuListener) this.dfu?.[DFU_CONTROL]?.removeEventListener('characteristicvaluechanged', this.dfuListener);
    this.dfuListener = (event) => this.send(DFU_CONTROL, bytesOf(event.target.value));
    control.addEventListener('characteristicvaluechanged', this.dfuListener);
    await control.startNotifications();
    this.bootloader = device;
    this.dfu = { [DFU_CONTROL]: control, [DFU_PACKET]: packet };
    this.onBootloaderGone = () => {
      device.removeEventListener('gattserverdisconnected', this.onBootloaderGone);
      if (this.bootloader === device) this.bootloader = null;
      this.sendControl({ type: 'bootloaderDisconnected', reason: t('glasses.bootloaderLost') });
    };
    device.addEventListener('gattserverdisconnected', this.onBootloaderGone);
    this.onBootloaderChoice(null);
    this.onState(t('glasses.updateInstalling'));
    this.sendControl({ type: 'bootloaderConnected', maxWriteLength: DFU_WRITE_LENGTH });
  }

  releaseBootloader() {
    const device = this.bootloader;
    if (!device) return;
    this.bootloader = null;
    device.removeEventListener('gattserverdisconnected', this.onBootloaderGone);
    if (device.gatt.connected) device.gatt.disconnect();
  }

  lost(reason) {
    if (this.closed) return;
    this.closed = true;
    this.device?.removeEventListener('gattserverdisconnected', this.onGone);
    this.releaseBootloader();
    this.onBootloaderChoice(null);
    this.sendControl({ type: 'disconnected', reason });
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    if (this.device?.gatt?.connected) this.device.gatt.disconnect();
    this.onState(reason);
    this.onClosed();
  }

  disconnect() {
    this.lost(t('glasses.disconnected'));
  }
}

/** A notification's bytes. */
function bytesOf(view) {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/**
 * Shows the glasses page.
 * @param {{show: Function, toast: Function}} page
 */
export async function renderGlasses({ show, toast }) {
  const relayState = h('p', { class: 'status-line', role: 'status' }, t('glasses.notConnected'));
  const connectButton = h('button', { type: 'button', i18n: 'glasses.connect', onclick: () => connect() });
  const disconnectButton = h('button', { type: 'button', class: 'quiet', i18n: 'glasses.disconnect', hidden: true, onclick: () => {
    // Let go on purpose: not reconnected until asked again.
    leftOnPurpose = true;
    clearTimeout(retryTimer);
    relay?.disconnect();
  } });
  // Glasses this browser was allowed to use before (Web Bluetooth's getDevices), which it
  // reconnects to by itself when they come back in range, unless this is off.
  const remembered = h('ul', { class: 'plain-list remembered', 'aria-label': t('glasses.remembered') });
  const autoReconnect = h('input', { id: 'glasses-auto-reconnect', type: 'checkbox', checked: localStorage.getItem('sibyl.glassesAutoReconnect') !== 'off' });
  autoReconnect.addEventListener('change', () => {
    localStorage.setItem('sibyl.glassesAutoReconnect', autoReconnect.checked ? 'on' : 'off');
    if (!autoReconnect.checked) clearTimeout(retryTimer);
    loadRemembered();
  });
  let leftOnPurpose = false;
  let retryTimer = null;
  let retryDelay = 2000;
  const watching = new Map();
  // What real glasses do once connected: answer questions, or caption what is said around the wearer.
  const relayMode = h('select', { id: 'relay-mode' }, h('option', { value: 'assistant', i18n: 'glasses.modeAssistant' }), h('option', { value: 'captions', i18n: 'glasses.modeCaptions' }));
  const relayTarget = h('input', { id: 'relay-target', type: 'text', placeholder: t('glasses.asHeard') });
  const relayTargetField = h('div', { class: 'compact-field', hidden: true }, h('label', { htmlFor: 'relay-target', i18n: 'glasses.captionsTranslateTo' }), relayTarget);
  relayMode.addEventListener('change', () => { relayTargetField.hidden = relayMode.value !== 'captions'; });
  const links = h('div', { class: 'links' });
  const persona = h('select', { id: 'glasses-persona' });
  const mode = h('select', { id: 'glasses-mode' }, h('option', { value: 'assistant', i18n: 'chat.modeChat' }), h('option', { value: 'translator', i18n: 'chat.modeTranslator' }),
    h('option', { value: 'captions', i18n: 'glasses.modeCaptions' }));
  const target = h('input', { id: 'glasses-target', type: 'text', value: 'English' });
  const targetField = h('div', { class: 'compact-field', hidden: true }, h('label', { htmlFor: 'glasses-target', i18n: 'chat.translateTo' }), target);
  const captionTarget = h('input', { id: 'glasses-caption-target', type: 'text', placeholder: t('glasses.asHeard') });
  const captionTargetField = h('div', { class: 'compact-field', hidden: true }, h('label', { htmlFor: 'glasses-caption-target', i18n: 'glasses.captionsTranslateTo' }), captionTarget);
  const personaField = h('div', { class: 'compact-field' }, h('label', { htmlFor: 'glasses-persona', i18n: 'chat.persona' }), persona);
  mode.addEventListener('change', () => {
    targetField.hidden = mode.value !== 'translator';
    captionTargetField.hidden = mode.value !== 'captions';
    personaField.hidden = mode.value === 'captions'; // captions answer nothing
  });
  const startButton = h('button', { type: 'button', i18n: 'glasses.startVirtual', onclick: startEmulator });
  const stopButton = h('button', { type: 'button', class: 'quiet danger', i18n: 'glasses.stopVirtual', hidden: true, onclick: stopEmulator });
  // The screen as the glasses draw it (a PNG from the server), described in words for screen readers.
  const screenImage = h('img', { alt: '', width: 640, height: 400 });
  const screen = h('div', { class: 'monocle-screen', role: 'img', hidden: true, 'aria-label': t('glasses.screenEmpty') }, screenImage);
  let shownScreen = null;
  let screenVersion = 0;
  const holdButton = h('button', { type: 'button', class: 'quiet', i18n: 'glasses.hold', onclick: () => act('hold') });
  const wearer = h('div', { class: 'row', hidden: true },
    h('button', { type: 'button', i18n: 'glasses.tap', onclick: () => act('tap') }), holdButton);
  let relay = null;
  // Glasses waiting in their bootloader that the browser may reach only after the person's click.
  const bootloaderButton = h('button', { type: 'button', i18n: 'glasses.chooseBootloader', hidden: true });
  // New firmware (and, on Monocle, a new FPGA image) installed through this page, one progress bar for both.
  const firmwareFile = h('input', { id: 'update-firmware', type: 'file', accept: '.zip,application/zip' });
  const firmwareVersion = h('input', { id: 'update-firmware-version', type: 'text', placeholder: 'v23.248.0754', autocomplete: 'off' });
  const fpgaFile = h('input', { id: 'update-fpga', type: 'file', accept: '.bin,application/octet-stream' });
  const fpgaVersion = h('input', { id: 'update-fpga-version', type: 'text', placeholder: 'v23.230.0808', autocomplete: 'off' });
  const fpgaFields = h('div', { class: 'row' },
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'update-fpga', i18n: 'glasses.updateFPGA' }), fpgaFile),
    h('div', { class: 'compact-field' }, h('label', { htmlFor: 'update-fpga-version', i18n: 'glasses.updateFPGAVersion' }), fpgaVersion));
  // A version in the file's name (as Brilliant Labs name their releases) fills the version field.
  const versionIn = (name) => name.match(/v\d{2}\.\d{3}\.\d{4}/)?.[0] ?? '';
  firmwareFile.addEventListener('change', () => { firmwareVersion.value = versionIn(firmwareFile.files[0]?.name ?? ''); });
  fpgaFile.addEventListener('change', () => { fpgaVersion.value = versionIn(fpgaFile.files[0]?.name ?? ''); });
  const installButton = h('button', { type: 'button', i18n: 'glasses.updateInstall', onclick: () => install() });
  const updateForm = h('fieldset', { class: 'update-form', hidden: true },
    h('legend', { i18n: 'glasses.updateTitle' }), h('p', { class: 'hint', i18n: 'glasses.updateHint' }),
    h('div', { class: 'row' },
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'update-firmware', i18n: 'glasses.updateFirmware' }), firmwareFile),
      h('div', { class: 'compact-field' }, h('label', { htmlFor: 'update-firmware-version', i18n: 'glasses.updateFirmwareVersion' }), firmwareVersion)),
    fpgaFields, h('div', { class: 'row' }, installButton));

  show(h('h1', { i18n: 'glasses.title' }),
    h('section', { class: 'card', 'aria-labelledby': 'relay-title' },
      h('h2', { id: 'relay-title', i18n: 'glasses.real' }), h('p', { class: 'hint', i18n: 'glasses.realHint' }),
      h('div', { class: 'row' }, h('div', { class: 'compact-field' }, h('label', { htmlFor: 'relay-mode', i18n: 'glasses.relayMode' }), relayMode), relayTargetField),
      relayState, h('div', { class: 'row' }, connectButton, disconnectButton, bootloaderButton), updateForm,
      h('h3', { i18n: 'glasses.remembered' }), remembered,
      h('label', { class: 'switch', htmlFor: 'glasses-auto-reconnect' }, autoReconnect, h('span', { i18n: 'glasses.autoReconnect' }))),
    h('section', { class: 'card', 'aria-labelledby': 'virtual-title' },
      h('h2', { id: 'virtual-title', i18n: 'glasses.virtual' }), h('p', { class: 'hint', i18n: 'glasses.virtualHint' }),
      h('div', { class: 'row' },
        personaField,
        h('div', { class: 'compact-field' }, h('label', { htmlFor: 'glasses-mode', i18n: 'chat.mode' }), mode),
        targetField, captionTargetField),
      h('div', { class: 'row' }, startButton, stopButton), screen, wearer),
    h('section', { class: 'card', 'aria-labelledby': 'links-title', 'aria-live': 'polite' }, h('h2', { id: 'links-title', i18n: 'glasses.linked' }), links));

  /** Connects to `device` (remembered glasses), or to the glasses the person chooses. */
  async function connect(device = null) {
    if (relay) return;
    clearTimeout(retryTimer);
    leftOnPurpose = false;
    connectButton.disabled = true;
    const link = new BluetoothRelay((text) => { relayState.textContent = text; }, () => {
      if (relay === link) relay = null;
      connectButton.hidden = false;
      disconnectButton.hidden = true;
      updateForm.hidden = true;
      relayMode.disabled = false;
      loadRemembered();
      // Lost, not let go: back as soon as they are in range again.
      if (link.reached && !leftOnPurpose && autoReconnect.checked && document.body.contains(remembered)) awaitReturn(link.device);
    }, { captions: relayMode.value === 'captions', translateTo: relayTarget.value.trim(), onBootloaderChoice: (choose) => {
      bootloaderButton.hidden = !choose;
      bootloaderButton.onclick = choose;
      if (choose) bootloaderButton.focus();
    } });
    relayMode.disabled = true;
    try {
      relay = link;
      await link.connect(device);
      connectButton.hidden = Boolean(relay);
      disconnectButton.hidden = !relay;
      // Updates go with questions and answers, not with captions.
      updateForm.hidden = !relay || link.captions;
      fpgaFields.hidden = link.kind !== 'monocle';
      firmwareVersion.placeholder = link.kind === 'frame' ? 'v25.080.0838' : 'v23.248.0754';
      retryDelay = 2000;
      loadRemembered();
    } catch (error) {
      // Let go of the glasses if they were reached before the step that failed.
      link.lost(error.name === 'NotFoundError' ? t('glasses.noneChosen') : error.message);
      if (device && !link.reached && !leftOnPurpose && autoReconnect.checked) awaitReturn(device);
    } finally {
      connectButton.disabled = false;
    }
  }

  /** Checks the chosen files on the server, then has the relay install them. */
  async function install() {
    if (!relay) return;
    const form = new FormData();
    form.set('kind', relay.kind);
    if (firmwareFile.files[0]) form.set('firmware', firmwareFile.files[0]);
    if (firmwareVersion.value.trim()) form.set('firmwareVersion', firmwareVersion.value.trim());
    if (relay.kind === 'monocle' && fpgaFile.files[0]) {
      form.set('fpga', fpgaFile.files[0]);
      form.set('fpgaVersion', fpgaVersion.value.trim());
    }
    installButton.disabled = true;
    try {
      const staged = await api('/glasses/updates', { method: 'POST', body: form });
      relay?.install(staged.id);
      for (const field of [firmwareFile, firmwareVersion, fpgaFile, fpgaVersion]) field.value = '';
    } catch (error) {
      toast(error.message);
    } finally {
      installButton.disabled = false;
    }
  }

  /**
   * Waits for lost glasses to come back: their advertisements (when the browser can watch them),
   * and a new attempt now and then (2 s, doubling up to 20 s) for browsers that cannot.
   */
  function awaitReturn(device) {
    if (!device) return;
    relayState.textContent = t('glasses.awaitingReturn', { name: device.name || t('glasses.yourGlasses') });
    watch(device);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      if (!relay && !leftOnPurpose && autoReconnect.checked && document.body.contains(remembered)) connect(device);
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 20000);
  }

  /** Listens for remembered glasses' advertisements: one heard while none is connected connects them. */
  function watch(device) {
    if (watching.has(device.id) || typeof device.watchAdvertisements !== 'function') return;
    const heard = () => {
      if (!relay && !leftOnPurpose && autoReconnect.checked && document.body.contains(remembered)) connect(device);
    };
    device.addEventListener('advertisementreceived', heard);
    watching.set(device.id, heard);
    device.watchAdvertisements().catch(() => watching.delete(device.id));
  }

  /** The glasses this browser remembers, each with a button to connect and one to forget them. */
  async function loadRemembered() {
    let devices = [];
    try {
      devices = (await navigator.bluetooth?.getDevices?.()) ?? [];
    } catch {
      // No permission to list them: the list stays empty.
    }
    devices = devices.filter((device) => /^(monocle|frame)/i.test(device.name ?? '') && !isBootloader(device));
    remembered.replaceChildren(...(devices.length ? devices.map((device) => {
      const name = device.name || t('glasses.yourGlasses');
      return h('li', { class: 'row', 'data-device': device.id },
        h('strong', {}, name),
        device.gatt?.connected ? h('span', { class: 'hint' }, t('glasses.connectedNow'))
          : h('button', { type: 'button', class: 'small', 'aria-label': t('glasses.connectNamed', { name }), onclick: () => connect(device) }, t('glasses.connectShort')),
        h('button', { type: 'button', class: 'quiet small danger', 'aria-label': t('glasses.forgetNamed', { name }), onclick: () => forget(device) }, t('glasses.forget')));
    }) : [h('li', { class: 'hint' }, t('glasses.noneRemembered'))]));
    if (autoReconnect.checked) devices.forEach(watch);
  }

  async function forget(device) {
    if (relay?.device?.id === device.id) {
      leftOnPurpose = true;
      relay.disconnect();
    }
    clearTimeout(retryTimer);
    try {
      await device.forget?.();
    } catch (error) {
      toast(error.message);
    }
    watching.delete(device.id);
    loadRemembered();
  }

  async function startEmulator() {
    startButton.disabled = true;
    try {
      const body = { languageHint: language() };
      if (persona.value && mode.value !== 'captions') body.persona = persona.value;
      if (mode.value === 'translator') body.translateTo = target.value.trim() || 'English';
      if (mode.value === 'captions') {
        body.captions = true;
        if (captionTarget.value.trim()) body.translateTo = captionTarget.value.trim();
      }
      await api('/glasses/emulator', { method: 'POST', body });
      refresh();
    } catch (error) {
      toast(error.message);
    } finally {
      startButton.disabled = false;
    }
  }

  async function stopEmulator() {
    try {
      await api('/glasses/emulator', { method: 'DELETE' });
    } catch (error) {
      toast(error.message);
    }
    refresh();
  }

  async function act(action) {
    try {
      await api(`/glasses/emulator/${action}`, { method: 'POST' });
    } catch (error) {
      toast(error.message);
    }
  }

  function describe(link) {
    const title = link.kind === 'emulator' ? 'glasses.virtualMonocle' : link.glasses === 'frame' ? 'glasses.realFrame' : 'glasses.realMonocle';
    return h('article', { class: 'link-card', 'data-kind': link.kind, 'data-glasses': link.glasses || 'monocle' },
      h('h3', {}, t(title)),
      h('dl', { class: 'stats' },
        h('dt', { i18n: 'glasses.state' }), h('dd', { class: 'link-state' }, link.state),
        link.firmware ? [h('dt', { i18n: 'glasses.firmware' }), h('dd', {}, link.firmware)] : null,
        link.fpga ? [h('dt', { i18n: 'glasses.fpga' }), h('dd', {}, link.fpga)] : null,
        link.update ? [h('dt', { i18n: 'glasses.update' }), h('dd', { class: 'update-progress' }, ...describeUpdate(link.update))] : null,
        link.notice ? [h('dt', { i18n: 'glasses.notice' }), h('dd', {}, link.notice)] : null,
        link.mode === 'captions' ? [h('dt', { i18n: link.paused ? 'glasses.captionsPaused' : 'glasses.captions' }),
          h('dd', { class: 'captions', 'aria-live': 'polite' }, ...(link.captions?.length ? link.captions.map((line) => h('span', { class: 'caption-line' }, line)) : [t('glasses.captionsWaiting')]))] : null,
        link.lastQuestion ? [h('dt', { i18n: 'glasses.lastQuestion' }), h('dd', { class: 'last-question' }, link.lastQuestion)] : null,
        link.lastAnswer ? [h('dt', { i18n: 'glasses.lastAnswer' }), h('dd', { class: 'last-answer' }, link.lastAnswer)] : null,
        link.lastError ? [h('dt', { i18n: 'glasses.lastError' }), h('dd', { class: 'error' }, link.lastError)] : null,
        h('dt', { i18n: 'glasses.since' }), h('dd', {}, formatDate(link.startedAt))));
  }

  /** An install's one progress bar (the firmware, then the FPGA image) and its words. */
  function describeUpdate(update) {
    const what = [update.firmware && t('glasses.updateWhatFirmware', { version: update.firmware }),
      update.fpga && t('glasses.updateWhatFPGA', { version: update.fpga })].filter(Boolean).join(' · ');
    const words = {
      running: update.step === 'fpga' ? 'glasses.updateWritingFPGA' : update.step === 'firmware' ? 'glasses.updateWritingFirmware' : 'glasses.updatePreparing',
      done: 'glasses.updateDone', upToDate: 'glasses.updateUpToDate', failed: 'glasses.updateFailed',
    }[update.outcome] ?? 'glasses.updatePreparing';
    const percent = new Intl.NumberFormat(language(), { style: 'percent' }).format(update.progress);
    return [
      h('progress', { max: '1', value: String(update.progress), 'aria-label': `${what}: ${percent}` }),
      h('span', { class: `update-words${update.outcome === 'failed' ? ' error' : ''}`, 'data-outcome': update.outcome },
        update.outcome === 'running' ? `${t(words)} · ${percent}` : t(words)),
      h('span', { class: 'hint update-what' }, what),
      update.error ? h('span', { class: 'error' }, update.error) : null,
    ];
  }

  // Only the newest refresh may fill the page: an older one may have read the glasses before a change.
  let refreshes = 0;
  async function refresh() {
    const mine = ++refreshes;
    try {
      const all = await api('/glasses');
      if (mine !== refreshes) return;
      links.replaceChildren(...(all.length ? all.map(describe) : [h('p', { class: 'hint', i18n: 'glasses.none' })]));
      translate(links);
      // One install at a time: the button waits while one runs.
      installButton.disabled = all.some((link) => link.update?.outcome === 'running');
      // Installed (or nothing to install): the relay is an ordinary one again. A failure keeps it
      // ready for the glasses, which may wait in their bootloader for another try.
      if (relay?.update && all.some((link) => link.kind === 'relay' && ['done', 'upToDate'].includes(link.update?.outcome))) relay.updateFinished();
      const emulator = all.find((link) => link.kind === 'emulator');
      startButton.hidden = Boolean(emulator);
      stopButton.hidden = !emulator;
      wearer.hidden = !emulator;
      // In captions a tap pauses and resumes; there is no photo question.
      holdButton.hidden = emulator?.mode === 'captions';
      screen.hidden = !emulator;
      if (emulator) {
        const frame = await api('/glasses/emulator/screen');
        if (mine !== refreshes) return;
        const key = JSON.stringify(frame);
        if (key !== shownScreen) {
          // Drawn again only when what it shows has changed.
          shownScreen = key;
          screenVersion += 1;
          screenImage.src = `/api/v1/glasses/emulator/screen.png?v=${screenVersion}`;
        }
        screen.setAttribute('aria-label', frame.lines.length ? t('glasses.screenShows', { text: frame.lines.join(' ') }) : t('glasses.screenEmpty'));
      } else {
        shownScreen = null;
        screenImage.removeAttribute('src');
        screen.setAttribute('aria-label', t('glasses.screenEmpty'));
      }
    } catch {
      // The next change tries again.
    }
  }

  try {
    const personas = await api('/personas');
    persona.replaceChildren(...personas.map((p) => h('option', { value: p.name }, p.name)));
    persona.value = personas.some((p) => p.name === 'concise') ? 'concise' : personas[0]?.name;
  } catch {
    persona.replaceChildren(h('option', { value: 'concise' }, 'concise'));
  }
  // The server tells every change to the glasses (their state, what they heard and answered, the
  // captions, the virtual Monocle's screen): the page follows without asking again and again.
  onLiveEvent(links, ({ type }) => { if (type === 'glasses') refresh(); }, 50);
  refresh();
  loadRemembered();
}
