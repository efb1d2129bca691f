import Foundation

/// Converts recordings to the 16 kHz mono PCM that speech engines expect.
public enum AudioResampling {
    /// The sample rate Whisper and most speech models are trained on.
    public static let speechSampleRate = 16_000

    /// Resamples one channel of audio with a band-limited (windowed-sinc) filter.
    public static func resample(_ samples: [Float], from sourceRate: Int, to targetRate: Int) -> [Float] {
        Resampler(from: sourceRate, to: targetRate).resample(samples)
    }

    /// Averages the channels of interleaved audio into one.
    public static func mixToMono(_ buffer: PCMBuffer) -> [Float] {
        let channels = buffer.channels
        guard channels > 1 else { return buffer.samples }
        let frames = buffer.frameCount
        var mono = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(channels)
        buffer.samples.withUnsafeBufferPointer { src in
            for frame in 0..<frames {
                var sum: Float = 0
                let base = frame * channels
                for channel in 0..<channels { sum += src[base + channel] }
                mono[frame] = sum * scale
            }
        }
        return mono
    }

    /// The audio as 16 kHz mono floats.
    public static func speechSamples(from buffer: PCMBuffer) -> [Float] {
        resample(mixToMono(buffer), from: buffer.sampleRate, to: speechSampleRate)
    }

    /// Decodes any PCM or float WAV file into 16 kHz mono floats.
    public static func speechSamples(fromWAV data: Data) throws -> [Float] {
        speechSamples(from: try PCMBuffer(wav: data))
    }

    /// Decodes any PCM or float WAV file into 16 kHz mono 16-bit samples.
    public static func speechPCM16(fromWAV data: Data) throws -> [Int16] {
        pcm16(try speechSamples(fromWAV: data))
    }

    /// Re-encodes any PCM or float WAV file as a 16 kHz mono 16-bit WAV.
    public static func speechWAV(fromWAV data: Data) throws -> WAVAudio {
        wav(pcm16: try speechPCM16(fromWAV: data), sampleRate: speechSampleRate)
    }

    /// Widens signed 8-bit samples (the Monocle microphone's format) to 16 bits at the same rate.
    ///
    /// Each byte becomes the high byte of the 16-bit sample, with no offset, as the Monocle apps do.
    /// The rate is unchanged (8 kHz stays 8 kHz); `speechPCM16(fromSigned8:)` also resamples to 16 kHz.
    public static func pcm16(fromSigned8 bytes: Data) -> [Int16] {
        bytes.map { Int16(Int8(bitPattern: $0)) << 8 }
    }

    /// Samples in -1...1 as signed 8-bit bytes, the Monocle microphone's format (rounded, clipped):
    /// the other way from `pcm16(fromSigned8:)`.
    public static func signed8(_ samples: [Float]) -> Data {
        Data(samples.map { UInt8(bitPattern: Int8(max(-128, min(127, ($0 * 128).rounded())))) })
    }

    /// Signed 8-bit samples (the glasses' format) as floats in -1...1, at the same rate.
    public static func floats(fromSigned8 bytes: Data) -> [Float] {
        bytes.map { Float(Int8(bitPattern: $0)) / 128 }
    }

    /// Turns signed 8-bit audio (Monocle: 8 kHz) into 16 kHz 16-bit samples.
    public static func speechPCM16(fromSigned8 bytes: Data, sampleRate: Int = 8_000) -> [Int16] {
        pcm16(resample(floats(fromSigned8: bytes), from: sampleRate, to: speechSampleRate))
    }

    /// Turns signed 8-bit audio (Monocle: 8 kHz) into a 16 kHz mono 16-bit WAV for any transcriber.
    public static func speechWAV(fromSigned8 bytes: Data, sampleRate: Int = 8_000) -> WAVAudio {
        wav(pcm16: speechPCM16(fromSigned8: bytes, sampleRate: sampleRate), sampleRate: speechSampleRate)
    }

    /// Quantises floats in -1...1 to 16-bit samples, clipping what lies outside.
    public static func pcm16(_ samples: [Float]) -> [Int16] {
        samples.map { sample in
            let scaled = (sample * 32_768).rounded()
            if scaled >= 32_767 { return Int16.max }
            if scaled <= -32_768 { return Int16.min }
            return scaled.isNaN ? 0 : Int16(scaled)
        }
    }

    /// 16-bit samples as floats in -1...1.
    public static func floats(_ samples: [Int16]) -> [Float] {
        samples.map { Float($0) / 32_768 }
    }

    /// Mono 16-bit samples wrapped as a WAV.
    public static func wav(pcm16 samples: [Int16], sampleRate: Int) -> WAVAudio {
        var data = Data(capacity: samples.count * 2)
        for sample in samples {
            let bits = UInt16(bitPattern: sample)
            data.append(UInt8(truncatingIfNeeded: bits))
            data.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return WAVAudio(sampleRate: sampleRate, channels: 1, bitsPerSample: 16, samples: data)
    }
}

/// A band-limited sample-rate converter for one channel.
///
/// The ratio is reduced to up/down integers and each output sample is a dot product with one
/// phase of a Kaiser-windowed sinc low-pass. Its cutoff sits at 90 % of the lower of the two
/// Nyquist frequencies and its stop band (about −80 dB) starts at that Nyquist frequency, so a
/// tone the new rate cannot represent is removed instead of folding back as an alias.
public struct Resampler: Sendable {
    /// The rate of the input samples.
    public let sourceRate: Int
    /// The rate of the output samples.
    public let targetRate: Int
    let up: Int
    let down: Int
    /// Taps on each side of the output instant, in input samples.
    let halfWidth: Int
    /// Cutoff in cycles per input sample, doubled (1 = the input's Nyquist frequency).
    private let cutoff: Double
    /// Phase-major filter taps, `up` rows of `2 * halfWidth`; nil when too large to tabulate.
    private let table: [Float]?

    private static let zeroCrossings = 32.0
    private static let rolloff = 0.9
    private static let kaiserBeta = 8.0
    private static let maxTableSize = 1 << 21

    public init(from sourceRate: Int, to targetRate: Int) {
        precondition(sourceRate > 0 && targetRate > 0, "sample rates must be positive")
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        let divisor = Self.gcd(sourceRate, targetRate)
        up = targetRate / divisor
        down = sourceRate / divisor
        cutoff = Self.rolloff * min(1, Double(targetRate) / Double(sourceRate))
        halfWidth = Int((Self.zeroCrossings / cutoff).rounded(.up))
        let taps = 2 * halfWidth
        if up * taps <= Self.maxTableSize, sourceRate != targetRate {
            var table = [Float](repeating: 0, count: up * taps)
            for phase in 0..<up {
                let row = Self.taps(phase: phase, up: up, halfWidth: halfWidth, cutoff: cutoff)
                table.replaceSubrange((phase * taps)..<((phase + 1) * taps), with: row)
            }
            self.table = table
        } else {
            table = nil
        }
    }

    /// Output length for an input of `count` samples: every output instant inside the input.
    public func outputCount(forInputCount count: Int) -> Int {
        (count * up + down - 1) / down
    }

    /// Resamples a whole signal; samples beyond its ends count as silence.
    public func resample(_ input: [Float]) -> [Float] {
        guard sourceRate != targetRate else { return input }
        return resample(input, outputs: 0..<outputCount(forInputCount: input.count))
    }

    /// How many leading output samples of a signal that goes on past `count` input samples are
    /// already final: those whose filter reaches no further than the input there is.
    public func finalOutputCount(forInputCount count: Int) -> Int {
        guard sourceRate != targetRate else { return count }
        return min(outputCount(forInputCount: count), max(0, ((count - halfWidth) * up + down - 1) / down))
    }

    /// The output samples at `outputs` (indices into the whole output) of `input`.
    public func resample(_ input: [Float], outputs: Range<Int>) -> [Float] {
        guard sourceRate != targetRate else { return Array(input[outputs]) }
        let taps = 2 * halfWidth
        var output = [Float](repeating: 0, count: outputs.count)
        let table = self.table ?? []
        input.withUnsafeBufferPointer { src in
            table.withUnsafeBufferPointer { tabulated in
                output.withUnsafeMutableBufferPointer { dst in
                    for (index, n) in outputs.enumerated() {
                        let position = n * down
                        let phase = position % up
                        let first = position / up - halfWidth + 1
                        let lo = max(0, -first)
                        let hi = min(taps, src.count - first)
                        guard lo < hi else { continue }
                        if tabulated.isEmpty {
                            // Rates with a huge common period: compute this phase's taps on the spot.
                            let weights = Self.taps(phase: phase, up: up, halfWidth: halfWidth, cutoff: cutoff)
                            var sum: Float = 0
                            for j in lo..<hi { sum += weights[j] * src[first + j] }
                            dst[index] = sum
                        } else {
                            let row = phase * taps
                            var sum: Float = 0
                            for j in lo..<hi { sum += tabulated[row + j] * src[first + j] }
                            dst[index] = sum
                        }
                    }
                }
            }
        }
        return output
    }

    /// Filter taps for one phase, normalised so that a constant signal keeps its level.
    private static func taps(phase: Int, up: Int, halfWidth: Int, cutoff: Double) -> [Float] {
        let fraction = Double(phase) / Double(up)
        let span = Double(halfWidth)
        var row = [Double](repeating: 0, count: 2 * halfWidth)
        for j in row.indices {
            // Distance from the output instant to input sample `first + j`.
            let x = fraction + span - 1 - Double(j)
            let ratio = x / span
            guard abs(ratio) < 1 else { continue }
            let window = besselI0(kaiserBeta * (1 - ratio * ratio).squareRoot()) / besselI0(kaiserBeta)
            row[j] = cutoff * sinc(cutoff * x) * window
        }
        let total = row.reduce(0, +)
        return row.map { Float(total != 0 ? $0 / total : $0) }
    }

    private static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// The zeroth-order modified Bessel function of the first kind, by its power series.
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let half = x / 2
        for k in 1..<64 {
            term *= (half / Double(k)) * (half / Double(k))
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// A `Resampler` for a signal that arrives in pieces (a microphone's, a radio's): together the
/// pieces it returns are what resampling the whole would give. Each output sample waits for the
/// input its filter reaches; `finish()` gives the rest, as if silence followed.
public struct StreamingResampler: Sendable {
    private let resampler: Resampler
    private var input: [Float] = []
    private var emitted = 0

    public init(from sourceRate: Int, to targetRate: Int) {
        resampler = Resampler(from: sourceRate, to: targetRate)
    }

    /// Adds input samples; returns the output samples that became final.
    public mutating func add(_ samples: [Float]) -> [Float] {
        input += samples
        return take(upTo: resampler.finalOutputCount(forInputCount: input.count))
    }

    /// The output samples still held back: the input has ended.
    public mutating func finish() -> [Float] {
        take(upTo: resampler.outputCount(forInputCount: input.count))
    }

    private mutating func take(upTo end: Int) -> [Float] {
        guard end > emitted else { return [] }
        defer {
            emitted = end
            forgetSpentInput()
        }
        return resampler.resample(input, outputs: emitted..<end)
    }

    /// Drops input no output still to come reaches, so a stream that goes on for hours (live
    /// captions) holds seconds, not all it was given: whole periods (`down` inputs, `up` outputs)
    /// at a time, so that what is left lines up with the outputs as before.
    private mutating func forgetSpentInput() {
        guard resampler.sourceRate != resampler.targetRate else {
            input.removeAll(keepingCapacity: true)
            emitted = 0
            return
        }
        let reached = emitted * resampler.down / resampler.up - resampler.halfWidth
        let periods = max(0, reached) / resampler.down
        guard periods * resampler.down >= Self.trimmingStep else { return }
        input.removeFirst(periods * resampler.down)
        emitted -= periods * resampler.up
    }

    /// How much spent input gathers before it is dropped (about 4 s at 16 kHz).
    static let trimmingStep = 65_536
}
