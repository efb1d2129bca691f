import Foundation

/// Uncompressed PCM audio and its RIFF/WAVE container.
public struct WAVAudio: Sendable, Hashable {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    /// Interleaved little-endian PCM samples.
    public var samples: Data

    public init(sampleRate: Int, channels: Int, bitsPerSample: Int, samples: Data) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.samples = samples
    }

    /// Problems reading a WAV file.
    public enum ParseError: Error, Equatable, LocalizedError {
        case notRIFF
        case missingChunk(String)
        case unsupportedEncoding(Int)

        public var errorDescription: String? {
            switch self {
            case .notRIFF: "Not a WAV file (no RIFF/WAVE header)."
            case .missingChunk(let name): "The WAV file has no \"\(name)\" chunk."
            case .unsupportedEncoding(let tag): "The WAV file is not plain PCM (format tag \(tag))."
            }
        }
    }

    /// Reads a WAV file; a data chunk whose size is unknown (0 or 0xFFFFFFFF, as streaming encoders write) runs to the end.
    public init(parsing data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw ParseError.notRIFF
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let start = offset + 8
            if id == "fmt ", start + 16 <= bytes.count {
                var tag = u16(start)
                // WAVE_FORMAT_EXTENSIBLE names the real encoding in the first two bytes of its sub-format GUID.
                if tag == 0xFFFE, size >= 40, start + 26 <= bytes.count { tag = u16(start + 24) }
                format = (tag, u16(start + 2), u32(start + 4), u16(start + 14))
            } else if id == "data" {
                guard let format else { throw ParseError.missingChunk("fmt ") }
                guard format.tag == 1 else { throw ParseError.unsupportedEncoding(format.tag) }
                let end = (size == 0 || size == 0xFFFF_FFFF || start + size > bytes.count) ? bytes.count : start + size
                self.init(sampleRate: format.rate, channels: format.channels, bitsPerSample: format.bits, samples: Data(bytes[start..<end]))
                return
            }
            offset = start + size + (size & 1)
        }
        throw ParseError.missingChunk(format == nil ? "fmt " : "data")
    }

    /// The audio as a canonical 44-byte-header WAV file.
    public func encoded() -> Data {
        var out = Data(capacity: 44 + samples.count)
        func append(_ text: String) { out.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        let blockAlign = channels * bitsPerSample / 8
        append("RIFF"); append32(36 + samples.count); append("WAVE")
        append("fmt "); append32(16); append16(1); append16(channels)
        append32(sampleRate); append32(sampleRate * blockAlign); append16(blockAlign); append16(bitsPerSample)
        append("data"); append32(samples.count)
        out.append(samples)
        return out
    }

    /// Length in seconds.
    public var duration: Double {
        let bytesPerSecond = sampleRate * channels * bitsPerSample / 8
        return bytesPerSecond == 0 ? 0 : Double(samples.count) / Double(bytesPerSecond)
    }

    /// Joins recordings of the same format, one after another.
    public static func concatenate(_ parts: [WAVAudio]) throws -> WAVAudio {
        guard var result = parts.first else { throw ParseError.missingChunk("data") }
        for part in parts.dropFirst() {
            guard part.sampleRate == result.sampleRate, part.channels == result.channels, part.bitsPerSample == result.bitsPerSample else {
                throw ParseError.unsupportedEncoding(-1)
            }
            result.samples.append(part.samples)
        }
        return result
    }
}
