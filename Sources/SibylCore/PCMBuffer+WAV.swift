import Foundation

extension PCMBuffer {
    /// Decodes a WAV file of integer PCM (8/16/24/32-bit) or IEEE float (32/64-bit) samples.
    ///
    /// `WAVAudio(parsing:)` keeps only the bit depth, which cannot tell 32-bit float from 32-bit
    /// integer and refuses format tag 3; this reader looks at the format tag (and, for
    /// WAVE_FORMAT_EXTENSIBLE, the sub-format) to decode both.
    public init(wav data: Data) throws {
        let layout = try WAVLayout(data)
        try self.init(
            decoding: data.subdata(in: layout.dataRange),
            format: layout.format,
            channels: layout.channels,
            sampleRate: layout.sampleRate
        )
    }

    /// Decodes integer PCM already parsed by `WAVAudio`.
    public init(_ wav: WAVAudio) throws {
        try self.init(decoding: wav.samples, format: .integer(bits: wav.bitsPerSample), channels: wav.channels, sampleRate: wav.sampleRate)
    }
}

/// Where a WAV file's samples are and how they are encoded.
private struct WAVLayout {
    var format: PCMBuffer.SampleFormat
    var channels: Int
    var sampleRate: Int
    var dataRange: Range<Int>

    private static let pcmTag = 1
    private static let floatTag = 3
    private static let extensibleTag = 0xFFFE

    init(_ data: Data) throws {
        let bytes = [UInt8](data.prefix(12))
        guard bytes.count == 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw WAVAudio.ParseError.notRIFF
        }
        let base = data.startIndex
        func u16(_ at: Int) -> Int { Int(data[base + at]) | Int(data[base + at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var found: (format: PCMBuffer.SampleFormat, channels: Int, rate: Int)?
        while offset + 8 <= data.count {
            let id = String(decoding: data[(base + offset)..<(base + offset + 4)], as: UTF8.self)
            let size = u32(offset + 4)
            let start = offset + 8
            if id == "fmt ", start + 16 <= data.count {
                var tag = u16(start)
                // WAVE_FORMAT_EXTENSIBLE names the real encoding in the first two bytes of its sub-format GUID.
                if tag == Self.extensibleTag, size >= 40, start + 26 <= data.count { tag = u16(start + 24) }
                let bits = u16(start + 14)
                switch tag {
                case Self.pcmTag: found = (.integer(bits: bits), u16(start + 2), u32(start + 4))
                case Self.floatTag: found = (.float(bits: bits), u16(start + 2), u32(start + 4))
                default: throw WAVAudio.ParseError.unsupportedEncoding(tag)
                }
            } else if id == "data" {
                guard let found else { throw WAVAudio.ParseError.missingChunk("fmt ") }
                // A size of 0 or 0xFFFFFFFF is what streaming encoders write when the length is unknown.
                let end = (size == 0 || size == 0xFFFF_FFFF || start + size > data.count) ? data.count : start + size
                self.format = found.format
                self.channels = found.channels
                self.sampleRate = found.rate
                self.dataRange = (base + start)..<(base + end)
                return
            }
            offset = start + size + (size & 1)
        }
        throw WAVAudio.ParseError.missingChunk(found == nil ? "fmt " : "data")
    }
}
