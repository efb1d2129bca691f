// Recording a spoken question: the microphone through MediaRecorder (each browser records its own
// format: WebM/Opus in Chromium, Ogg/Opus in Firefox), stopped when the speaker falls silent, and
// turned into 16 kHz WAV of just the speech before it is sent (the server reads the original
// formats too, through ffmpeg, which costs it a few hundred milliseconds). An energy detector polls the loudness every 50 ms: speech has begun after
// `onsetMs` above the threshold, and the recording stops after `hangoverMs` below it.

/** Loudness of a block of samples in dB relative to full scale. */
export function decibels(samples) {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  const rms = Math.sqrt(sum / Math.max(1, samples.length));
  return rms > 0 ? 20 * Math.log10(rms) : -120;
}

/**
 * The silence detector on its own (no browser APIs), fed one loudness reading at a time.
 * Returns what happened: 'waiting', 'speaking', 'stop-silence', 'stop-no-speech' or 'stop-max'.
 */
export class SilenceDetector {
  constructor({ thresholdDb = -45, onsetMs = 120, hangoverMs = 1200, waitMs = 10000, maxMs = 30000 } = {}) {
    Object.assign(this, { thresholdDb, onsetMs, hangoverMs, waitMs, maxMs });
    this.loudFor = 0;
    this.quietFor = 0;
    this.elapsed = 0;
    this.speaking = false;
    /** When, in ms since the start, the last loud reading came (the end of speech, once stopped). */
    this.lastLoudAt = null;
    /** When, in ms since the start, the speech began. */
    this.speechStartedAt = null;
  }

  /** @param {number} db @param {number} stepMs */
  feed(db, stepMs) {
    this.elapsed += stepMs;
    const loud = db >= this.thresholdDb;
    if (loud) {
      this.loudFor += stepMs;
      this.quietFor = 0;
      this.lastLoudAt = this.elapsed;
      if (!this.speaking && this.loudFor >= this.onsetMs) {
        this.speaking = true;
        this.speechStartedAt = this.elapsed - this.loudFor;
      }
    } else {
      this.loudFor = 0;
      this.quietFor += stepMs;
    }
    if (this.elapsed >= this.maxMs) return 'stop-max';
    if (this.speaking && this.quietFor >= this.hangoverMs) return 'stop-silence';
    if (!this.speaking && this.elapsed >= this.waitMs) return 'stop-no-speech';
    return this.speaking ? 'speaking' : 'waiting';
  }
}

/**
 * Records until the speaker falls silent or `stop()` is called.
 * `onLevel(db, state)` is called every 50 ms for a level meter.
 */
export class SpeechRecorder {
  constructor(options = {}, onLevel = () => {}) {
    this.options = options;
    this.onLevel = onLevel;
    this.stepMs = 50;
  }

  /** Starts recording; resolves with `{blob, mimeType, reason, speechEndedAt}` when it ends. */
  async record() {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    const recorder = new MediaRecorder(stream);
    const chunks = [];
    recorder.addEventListener('dataavailable', (event) => { if (event.data.size) chunks.push(event.data); });
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    context.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const detector = new SilenceDetector(this.options);
    this.detector = detector;
    if (this.pendingWait !== undefined) this.waitFromNow(this.pendingWait);
    const startedAt = performance.now();
    let reason = 'stopped';
    const finished = new Promise((resolve) => recorder.addEventListener('stop', resolve, { once: true }));
    recorder.start(250);
    this.stopNow = (why = 'stopped') => {
      reason = why;
      if (recorder.state !== 'inactive') recorder.stop();
    };
    const timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      const db = decibels(samples);
      const state = detector.feed(db, this.stepMs);
      this.onLevel(db, state);
      if (state.startsWith('stop-')) this.stopNow(state.slice(5));
    }, this.stepMs);
    await finished;
    clearInterval(timer);
    for (const track of stream.getTracks()) track.stop();
    context.close();
    const mimeType = recorder.mimeType || chunks[0]?.type || 'audio/webm';
    return {
      blob: new Blob(chunks, { type: mimeType }),
      mimeType,
      reason,
      spoke: detector.speaking,
      /** Where the speech is in the recording, in ms (for trimming before the upload). */
      speech: detector.speaking ? { from: detector.speechStartedAt, to: detector.lastLoudAt } : null,
      /** performance.now() of the end of speech (the last loud reading), for timing the answer. */
      speechEndedAt: detector.lastLoudAt === null ? null : startedAt + detector.lastLoudAt,
    };
  }

  /** Gives the speaker `waitMs` from now to begin (no speech yet: the recording then ends). */
  waitFromNow(waitMs) {
    if (!this.detector) {
      this.pendingWait = waitMs;
      return;
    }
    if (!this.detector.speaking) this.detector.waitMs = this.detector.elapsed + waitMs;
  }

  /** Stops a recording under way (the user pressed stop). */
  stop() {
    this.stopNow?.('stopped');
  }
}

/**
 * The recording as 16 kHz mono 16-bit WAV, cut to the speech with a margin: what the server's
 * speech-to-text reads anyway, so it needs no decoder (ffmpeg) there, and the upload is only the
 * words. Resolves null when the browser cannot decode its own recording (then send it as it is).
 */
export async function speechWAV(blob, speech, marginMs = 400) {
  try {
    const rate = 16000;
    const context = new OfflineAudioContext({ numberOfChannels: 1, length: 1, sampleRate: rate });
    const audio = await context.decodeAudioData(await blob.arrayBuffer());
    const samples = audio.getChannelData(0);
    const from = speech ? Math.max(0, Math.floor(((speech.from - marginMs) / 1000) * rate)) : 0;
    const to = speech ? Math.min(samples.length, Math.ceil(((speech.to + marginMs) / 1000) * rate)) : samples.length;
    const count = Math.max(0, to - from);
    const bytes = new DataView(new ArrayBuffer(44 + count * 2));
    const text = (offset, value) => { for (let i = 0; i < value.length; i += 1) bytes.setUint8(offset + i, value.charCodeAt(i)); };
    text(0, 'RIFF');
    bytes.setUint32(4, 36 + count * 2, true);
    text(8, 'WAVE');
    text(12, 'fmt ');
    bytes.setUint32(16, 16, true);
    bytes.setUint16(20, 1, true);
    bytes.setUint16(22, 1, true);
    bytes.setUint32(24, rate, true);
    bytes.setUint32(28, rate * 2, true);
    bytes.setUint16(32, 2, true);
    bytes.setUint16(34, 16, true);
    text(36, 'data');
    bytes.setUint32(40, count * 2, true);
    for (let i = 0; i < count; i += 1) {
      const sample = Math.max(-1, Math.min(1, samples[from + i]));
      bytes.setInt16(44 + i * 2, sample < 0 ? sample * 0x8000 : sample * 0x7fff, true);
    }
    return new Blob([bytes.buffer], { type: 'audio/wav' });
  } catch {
    return null;
  }
}

/** The file name extension for a recording's type. */
export function extensionFor(mimeType) {
  if (mimeType.includes('ogg')) return 'ogg';
  if (mimeType.includes('mp4')) return 'm4a';
  if (mimeType.includes('wav')) return 'wav';
  return 'webm';
}
