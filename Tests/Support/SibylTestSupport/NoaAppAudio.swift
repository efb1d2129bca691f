import Foundation
import SibylCore

/// Recordings as Brilliant's Noa app sends them: Frame's signed 8-bit samples at 8 kHz, offset by
/// 128 into an unsigned 8-bit WAV (its bytes_to_wav.dart), with half a second of quiet first.
public enum NoaAppAudio {
    /// `speech` (a WAV of any rate) as the Noa app's WAV.
    public static func wav(from speech: Data) throws -> Data {
        let samples = try AudioResampling.speechSamples(fromWAV: speech)
        let narrow = AudioResampling.resample([Float](repeating: 0, count: 8_000) + samples, from: AudioResampling.speechSampleRate, to: 8_000)
        return WAVAudio(sampleRate: 8_000, channels: 1, bitsPerSample: 8, samples: Data(AudioResampling.signed8(narrow).map { $0 &+ 128 })).encoded()
    }
}
