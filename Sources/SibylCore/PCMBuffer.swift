import Foundation

/// Decoded audio: interleaved floating-point samples, nominally in -1...1.
public struct PCMBuffer: Sendable, Hashable {
    /// Frames per second.
    public var sampleRate: Int
    /// Samples per frame.
    public var channels: Int
    /// Interleaved samples: frame 0 channel 0, frame 0 channel 1, …
    public var samples: [Float]

    /// Wraps interleaved samples.
    public init(sampleRate: Int, channels: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Samples per channel.
    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// How samples are stored in a PCM stream.
    public enum SampleFormat: Sendable, Hashable {
        /// Integers of 8 (unsigned, as WAV stores them), 16, 24 or 32 bits.
        case integer(bits: Int)
        /// IEEE floats of 32 or 64 bits.
        case float(bits: Int)
    }

    /// Problems decoding audio samples.
    public enum DecodingError: Error, Equatable, LocalizedError {
        case unsupportedSampleFormat(SampleFormat)
        case invalidLayout(channels: Int, sampleRate: Int)

        public var errorDescription: String? {
            switch self {
            case .unsupportedSampleFormat(.integer(let bits)):
                "\(bits)-bit integer samples are not supported; use 8, 16, 24 or 32-bit PCM or 32-bit float."
            case .unsupportedSampleFormat(.float(let bits)):
                "\(bits)-bit float samples are not supported; use 32 or 64-bit float or integer PCM."
            case .invalidLayout(let channels, let rate):
                "The audio declares \(channels) channels at \(rate) Hz, which cannot be decoded."
            }
        }
    }

    /// Decodes little-endian interleaved samples; a trailing partial frame is dropped.
    public init(decoding bytes: Data, format: SampleFormat, channels: Int, sampleRate: Int) throws {
        guard channels > 0, sampleRate > 0 else { throw DecodingError.invalidLayout(channels: channels, sampleRate: sampleRate) }
        let width: Int
        switch format {
        case .integer(let bits) where [8, 16, 24, 32].contains(bits): width = bits / 8
        case .float(let bits) where bits == 32 || bits == 64: width = bits / 8
        default: throw DecodingError.unsupportedSampleFormat(format)
        }
        let frameBytes = width * channels
        let count = (bytes.count / frameBytes) * channels
        var out = [Float](repeating: 0, count: count)
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            out.withUnsafeMutableBufferPointer { dst in
                Self.decode(raw, format: format, width: width, into: dst)
            }
        }
        self.init(sampleRate: sampleRate, channels: channels, samples: out)
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, format: SampleFormat, width: Int, into dst: UnsafeMutableBufferPointer<Float>) {
        // Little-endian reads assembled byte by byte: WAV data need not be aligned.
        func u32(_ at: Int) -> UInt32 {
            UInt32(raw[at]) | UInt32(raw[at + 1]) << 8 | UInt32(raw[at + 2]) << 16 | UInt32(raw[at + 3]) << 24
        }
        switch (format, width) {
        case (.integer, 1):
            for i in dst.indices { dst[i] = (Float(raw[i]) - 128) / 128 }
        case (.integer, 2):
            for i in dst.indices {
                let value = Int16(bitPattern: UInt16(raw[2 * i]) | UInt16(raw[2 * i + 1]) << 8)
                dst[i] = Float(value) / 32_768
            }
        case (.integer, 3):
            for i in dst.indices {
                let at = 3 * i
                // Placing the 24 bits high in an Int32 sign-extends them for free.
                let value = Int32(bitPattern: UInt32(raw[at]) << 8 | UInt32(raw[at + 1]) << 16 | UInt32(raw[at + 2]) << 24) >> 8
                dst[i] = Float(value) / 8_388_608
            }
        case (.integer, _):
            for i in dst.indices { dst[i] = Float(Double(Int32(bitPattern: u32(4 * i))) / 2_147_483_648) }
        case (.float, 4):
            for i in dst.indices { dst[i] = Float(bitPattern: u32(4 * i)) }
        case (.float, _):
            for i in dst.indices {
                let bits = UInt64(u32(8 * i)) | UInt64(u32(8 * i + 4)) << 32
                dst[i] = Float(Double(bitPattern: bits))
            }
        }
    }
}
