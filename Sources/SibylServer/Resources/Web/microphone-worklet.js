// The microphone's sound for the live voice socket, taken on the audio thread: each block of
// 1,024 samples becomes 16-bit PCM and goes to the page through the node's port, where messages
// wait in a queue. A page busy with other work so sends its blocks late but loses none (the
// ScriptProcessorNode this replaces dropped blocks when the page's thread fell behind, and the
// words in them with it).

const BLOCK = 1024;

class MicrophoneBlocks extends AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Int16Array(BLOCK);
    this.filled = 0;
    this.energy = 0;
    this.port.onmessage = (event) => { if (event.data === 'end') this.ended = true; };
  }

  process(inputs) {
    if (this.ended) return false;
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i += 1) {
      const sample = Math.max(-1, Math.min(1, channel[i]));
      this.energy += sample * sample;
      this.block[this.filled] = Math.round(sample * 32767);
      this.filled += 1;
      if (this.filled === BLOCK) {
        const rms = Math.sqrt(this.energy / BLOCK);
        this.port.postMessage({ pcm: this.block.buffer, decibels: rms > 0 ? 20 * Math.log10(rms) : -120 }, [this.block.buffer]);
        this.block = new Int16Array(BLOCK);
        this.filled = 0;
        this.energy = 0;
      }
    }
    return true;
  }
}

registerProcessor('sibyl-microphone-blocks', MicrophoneBlocks);
