import Foundation
import Testing
@testable import SibylCore

@Suite("Audio resampling", .timeLimit(.minutes(10)))
struct AudioResamplingTests {
    // MARK: Signals and measurements

    static func sine(frequency: Double, rate: Int, seconds: Double, amplitude: Double = 0.5) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// The amplitude of the `frequency` component (a single-bin DFT), over the middle of the signal.
    static func amplitude(of frequency: Double, in samples: [Float], rate: Int) -> Double {
        let middle = trimmed(samples)
        var re = 0.0, im = 0.0
        for (n, x) in middle.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / Double(rate)
            re += Double(x) * cos(phase)
            im -= Double(x) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(middle.count)
    }

    /// Frequency from the spacing of upward zero crossings (interpolated), over the middle of the signal.
    static func measuredFrequency(_ samples: [Float], rate: Int) -> Double {
        let middle = trimmed(samples)
        var crossings: [Double] = []
        for n in 1..<middle.count where middle[n - 1] < 0 && middle[n] >= 0 {
            let fraction = Double(-middle[n - 1]) / Double(middle[n] - middle[n - 1])
            crossings.append(Double(n - 1) + fraction)
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(rate) * Double(crossings.count - 1) / (last - first)
    }

    static func rms(_ samples: [Float]) -> Double {
        let middle = trimmed(samples)
        return (middle.reduce(0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
    }

    /// Drops the first and last 10 %, where the filter runs into the signal's ends.
    static func trimmed(_ samples: [Float]) -> [Float] {
        let margin = samples.count / 10
        return Array(samples[margin..<(samples.count - margin)])
    }

    // MARK: Resampler

    @Test("8 kHz → 16 kHz keeps a tone's frequency and amplitude", arguments: [440.0, 1_000.0, 3_000.0])
    func upsampleKeepsTone(frequency: Double) {
        let input = Self.sine(frequency: frequency, rate: 8_000, seconds: 1)
        let output = AudioResampling.resample(input, from: 8_000, to: 16_000)
        #expect(output.count == 16_000)
        #expect(abs(Self.measuredFrequency(output, rate: 16_000) - frequency) < frequency * 0.001)
        #expect(abs(Self.amplitude(of: frequency, in: output, rate: 16_000) - 0.5) < 0.005)
    }

    @Test("44.1 kHz → 16 kHz keeps a tone's frequency and amplitude", arguments: [440.0, 1_000.0, 5_000.0])
    func downsampleKeepsTone(frequency: Double) {
        let input = Self.sine(frequency: frequency, rate: 44_100, seconds: 1)
        let output = AudioResampling.resample(input, from: 44_100, to: 16_000)
        #expect(output.count == 16_000)
        #expect(abs(Self.measuredFrequency(output, rate: 16_000) - frequency) < frequency * 0.001)
        #expect(abs(Self.amplitude(of: frequency, in: output, rate: 16_000) - 0.5) < 0.005)
    }

    @Test("A tone above the new Nyquist frequency is removed, not aliased", arguments: [(44_100, 12_000.0), (48_000, 9_000.0), (22_050, 10_000.0)])
    func noAliasing(rate: Int, frequency: Double) {
        let input = Self.sine(frequency: frequency, rate: rate, seconds: 1)
        let output = AudioResampling.resample(input, from: rate, to: 16_000)
        // Without filtering the tone would fold back to 16 kHz − f.
        let alias = 16_000 - frequency
        let leak = Self.amplitude(of: alias, in: output, rate: 16_000)
        print(String(format: "[resampler] %d Hz → 16 kHz: %.0f Hz tone at the alias %.0f Hz: %.1f dB", rate, frequency, alias, 20 * log10(max(leak, 1e-12) / 0.5)))
        #expect(leak < 0.5 * 0.001)
        #expect(Self.rms(output) < 0.5 * 0.001)
    }

    @Test("Output lengths follow the rate ratio")
    func lengths() {
        #expect(Resampler(from: 8_000, to: 16_000).outputCount(forInputCount: 8_001) == 16_002)
        #expect(Resampler(from: 44_100, to: 16_000).outputCount(forInputCount: 44_100) == 16_000)
        #expect(Resampler(from: 44_100, to: 16_000).outputCount(forInputCount: 441) == 160)
        #expect(Resampler(from: 22_050, to: 16_000).outputCount(forInputCount: 22_050 * 3) == 48_000)
        #expect(AudioResampling.resample([Float](repeating: 0.1, count: 7), from: 48_000, to: 16_000).count == 3)
        #expect(AudioResampling.resample([], from: 8_000, to: 16_000).isEmpty)
    }

    @Test("The same rate returns the input unchanged")
    func identity() {
        let input = Self.sine(frequency: 700, rate: 16_000, seconds: 0.1)
        #expect(AudioResampling.resample(input, from: 16_000, to: 16_000) == input)
    }

    @Test("A constant level is kept (unity gain at DC)", arguments: [8_000, 11_025, 22_050, 44_100, 48_000])
    func dcGain(rate: Int) {
        let output = AudioResampling.resample([Float](repeating: 0.25, count: rate / 2), from: rate, to: 16_000)
        for sample in Self.trimmed(output) { #expect(abs(sample - 0.25) < 0.0005) }
    }

    @Test("Rates with a huge common period use taps computed on the fly")
    func untabulatedRatio() {
        let input = Self.sine(frequency: 1_000, rate: 44_101, seconds: 0.05)
        let output = AudioResampling.resample(input, from: 44_101, to: 16_000)
        #expect(output.count == Resampler(from: 44_101, to: 16_000).outputCount(forInputCount: input.count))
        #expect(abs(Self.amplitude(of: 1_000, in: output, rate: 16_000) - 0.5) < 0.01)
    }

    // MARK: Channels and sample formats

    @Test("Channels are averaged")
    func mixToMono() {
        let stereo = PCMBuffer(sampleRate: 16_000, channels: 2, samples: [0.5, -0.5, 0.2, 0.4, 1, 1])
        #expect(AudioResampling.mixToMono(stereo).map { ($0 * 1000).rounded() / 1000 } == [0, 0.3, 1])
        let quad = PCMBuffer(sampleRate: 16_000, channels: 4, samples: [0.4, 0.4, 0, 0])
        #expect(AudioResampling.mixToMono(quad) == [0.2])
    }

    @Test("Signed 8-bit bytes become the high byte of 16-bit samples")
    func signed8() {
        #expect(AudioResampling.pcm16(fromSigned8: Data([0x00, 0x01, 0x7F, 0x80, 0xFF])) == [0, 256, 32_512, -32_768, -256])
    }

    @Test("Samples become signed 8-bit bytes, rounded and clipped")
    func toSigned8() {
        #expect(AudioResampling.signed8([0, 1.0 / 128, 0.5, -0.5, 1, -1, 2, -2, 0.0039]) == Data([0x00, 0x01, 0x40, 0xC0, 0x7F, 0x80, 0x7F, 0x80, 0x00]))
    }

    @Test("Monocle audio (signed 8-bit, 8 kHz) becomes 16 kHz with its tone intact")
    func monocleAudio() throws {
        let tone = Self.sine(frequency: 500, rate: 8_000, seconds: 1, amplitude: 0.5)
        let bytes = Data(tone.map { UInt8(bitPattern: Int8(($0 * 127).rounded())) })
        let pcm = AudioResampling.speechPCM16(fromSigned8: bytes)
        #expect(pcm.count == 16_000)
        let floats = AudioResampling.floats(pcm)
        #expect(abs(Self.measuredFrequency(floats, rate: 16_000) - 500) < 0.5)
        #expect(abs(Self.amplitude(of: 500, in: floats, rate: 16_000) - 0.5) < 0.01)
        let wav = AudioResampling.speechWAV(fromSigned8: bytes)
        #expect(wav.sampleRate == 16_000 && wav.channels == 1 && wav.bitsPerSample == 16)
        #expect(try PCMBuffer(wav).samples == floats)
    }

    @Test("Float to 16-bit conversion rounds and clips")
    func quantise() {
        #expect(AudioResampling.pcm16([0, 0.5, -0.5, 1, -1, 2, -2, .nan]) == [0, 16_384, -16_384, 32_767, -32_768, 32_767, -32_768, 0])
    }

    @Test("A stereo 44.1 kHz WAV becomes a 16 kHz mono 16-bit WAV")
    func speechWAV() throws {
        let left = Self.sine(frequency: 1_000, rate: 44_100, seconds: 0.5)
        let interleaved = left.flatMap { [$0, $0] }
        let wav = WAVAudio(sampleRate: 44_100, channels: 2, bitsPerSample: 16, samples: WAVFixtures.int16Bytes(interleaved))
        let speech = try AudioResampling.speechWAV(fromWAV: wav.encoded())
        #expect(speech.sampleRate == 16_000)
        #expect(speech.channels == 1)
        #expect(speech.bitsPerSample == 16)
        #expect(speech.samples.count == 8_000 * 2)
        let samples = try PCMBuffer(speech).samples
        #expect(abs(Self.amplitude(of: 1_000, in: samples, rate: 16_000) - 0.5) < 0.005)
    }

    /// Twelve seconds: long enough that the streaming resampler drops spent input along the way
    /// (as it must, for captions that run for hours), and the pieces must still be the whole.
    @Test(arguments: [(8_000, 16_000), (48_000, 16_000), (44_100, 16_000), (16_000, 16_000)])
    func aSignalResampledInPiecesIsTheWholeResampled(rates: (Int, Int)) {
        var generator = SystemRandomNumberGenerator()
        let signal = (0..<(rates.0 * 12)).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
        let whole = Resampler(from: rates.0, to: rates.1).resample(signal)
        var streaming = StreamingResampler(from: rates.0, to: rates.1)
        var pieces: [Float] = []
        var index = 0
        // Pieces of uneven sizes, as a radio delivers them: some shorter than the filter's reach.
        for size in [1, 7, 120, 3, 249, 40, 1000].cycled() {
            guard index < signal.count else { break }
            let end = min(signal.count, index + size)
            let piece = streaming.add(Array(signal[index..<end]))
            // Nothing comes out before the input it depends on.
            #expect(pieces.count + piece.count <= Resampler(from: rates.0, to: rates.1).finalOutputCount(forInputCount: end))
            pieces += piece
            index = end
        }
        pieces += streaming.finish()
        #expect(pieces.count == whole.count)
        #expect(zip(pieces, whole).allSatisfy { abs($0 - $1) < 1e-6 })
    }
}

extension Array {
    /// The elements over and over.
    fileprivate func cycled() -> UnfoldSequence<Element, Int> {
        sequence(state: 0) { index in
            defer { index = (index + 1) % count }
            return self[index]
        }
    }
}
