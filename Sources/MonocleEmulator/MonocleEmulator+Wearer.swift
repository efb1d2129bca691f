import Foundation
import Glasses
import NIOCore
import SecureDFU
import SibylCore

// The wearer's side.
extension MonocleEmulator {
    /// A short tap on a touch pad (`A`, `B` or `BOTH`): the press and the release are sent
    /// together, so that a busy machine, which may wake this task late, can never stretch a tap
    /// into a hold (the device app takes a photo after a second's press).
    public func tap(_ pad: String = "A") async {
        send(EmulatorFrame(.touchDown, Array(pad.utf8)))
        send(EmulatorFrame(.touchUp))
    }

    /// A press held for a while (Sibyl's app takes a photo after one second).
    public func hold(_ pad: String = "A", for duration: Duration = .milliseconds(1_300)) async {
        send(EmulatorFrame(.touchDown, Array(pad.utf8)))
        try? await Task.sleep(for: duration)
        send(EmulatorFrame(.touchUp))
    }

    /// What the microphone hears next: a WAV file of any rate and layout.
    ///
    /// The clip is band-limited and resampled here, once for each rate the firmware records at
    /// (16 and 8 kHz), as the microphone's own filter would; the stubs only pick samples.
    public func speak(wav: Data) throws {
        let buffer = try PCMBuffer(wav: wav)
        let mono = AudioResampling.mixToMono(buffer)
        microphone = [16_000, 8_000].map { rate in
            var payload: [UInt8] = withUnsafeBytes(of: UInt32(rate).bigEndian) { Array($0) }
            for sample in AudioResampling.pcm16(AudioResampling.resample(mono, from: buffer.sampleRate, to: rate)) {
                withUnsafeBytes(of: sample.littleEndian) { payload.append(contentsOf: $0) }
            }
            return payload
        }
        for clip in microphone { send(EmulatorFrame(.microphone, clip)) }
    }

    /// What the camera sees next (JPEG bytes).
    public func photo(jpeg: Data) {
        photoBytes = [UInt8](jpeg)
        send(EmulatorFrame(.photo, [UInt8](jpeg)))
    }
}
