import Foundation
import Testing
@testable import SibylCore

/// WAV files in the encodings other tools write, built byte by byte.
enum WAVFixtures {
    static func int16Bytes(_ samples: [Float]) -> Data {
        var data = Data()
        for value in AudioResampling.pcm16(samples) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// A WAV with the given format tag; `extensibleSubFormat` wraps it in WAVE_FORMAT_EXTENSIBLE.
    static func wav(tag: Int, channels: Int, rate: Int, bits: Int, payload: Data, extensibleSubFormat: Int? = nil, extraChunk: Bool = false) -> Data {
        var data = Data()
        func text(_ string: String) { data.append(contentsOf: Array(string.utf8)) }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        let blockAlign = channels * bits / 8
        let fmtSize = extensibleSubFormat == nil ? 16 : 40
        text("RIFF"); u32(4 + 8 + fmtSize + (extraChunk ? 8 + 4 : 0) + 8 + payload.count); text("WAVE")
        text("fmt "); u32(fmtSize)
        u16(extensibleSubFormat == nil ? tag : 0xFFFE); u16(channels); u32(rate); u32(rate * blockAlign); u16(blockAlign); u16(bits)
        if let sub = extensibleSubFormat {
            u16(22); u16(bits); u32(0)
            // The sub-format GUID: the format tag, then the fixed suffix 0000-0010-8000-00AA00389B71.
            u16(sub); data.append(contentsOf: [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        if extraChunk { text("LIST"); u32(4); text("INFO") }
        text("data"); u32(payload.count)
        data.append(payload)
        return data
    }
}

@Suite("PCM decoding", .timeLimit(.minutes(10)))
struct PCMBufferTests {
    @Test("8-bit WAV samples are unsigned with a 128 offset")
    func unsigned8() throws {
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 1, rate: 8_000, bits: 8, payload: Data([0, 128, 255, 192])))
        #expect(buffer.samples == [-1, 0, 127.0 / 128, 0.5])
        #expect(buffer.sampleRate == 8_000)
    }

    @Test("16-bit samples are signed little-endian")
    func int16() throws {
        let payload = Data([0x00, 0x80, 0xFF, 0x7F, 0x00, 0x40, 0x00, 0x00])
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 2, rate: 44_100, bits: 16, payload: payload))
        #expect(buffer.samples == [-1, 32_767.0 / 32_768, 0.5, 0])
        #expect(buffer.channels == 2)
        #expect(buffer.frameCount == 2)
    }

    @Test("24-bit samples are sign-extended")
    func int24() throws {
        let payload = Data([0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x40, 0xFF, 0xFF, 0xFF])
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 1, rate: 48_000, bits: 24, payload: payload))
        #expect(buffer.samples == [-1, Float(8_388_607.0 / 8_388_608), 0.5, Float(-1.0 / 8_388_608)])
    }

    @Test("32-bit integer samples")
    func int32() throws {
        let payload = Data([0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x00])
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 1, rate: 16_000, bits: 32, payload: payload))
        #expect(buffer.samples == [-1, -0.5, 0])
    }

    @Test("32-bit float samples, plain and WAVE_FORMAT_EXTENSIBLE")
    func float32() throws {
        var payload = Data()
        for value: Float in [0.25, -0.75, 1.5] { withUnsafeBytes(of: value.bitPattern.littleEndian) { payload.append(contentsOf: $0) } }
        let plain = try PCMBuffer(wav: WAVFixtures.wav(tag: 3, channels: 1, rate: 22_050, bits: 32, payload: payload))
        #expect(plain.samples == [0.25, -0.75, 1.5])
        let extensible = try PCMBuffer(wav: WAVFixtures.wav(tag: 3, channels: 1, rate: 22_050, bits: 32, payload: payload, extensibleSubFormat: 3))
        #expect(extensible.samples == [0.25, -0.75, 1.5])
    }

    @Test("64-bit float samples")
    func float64() throws {
        var payload = Data()
        for value: Double in [0.5, -0.125] { withUnsafeBytes(of: value.bitPattern.littleEndian) { payload.append(contentsOf: $0) } }
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 3, channels: 1, rate: 8_000, bits: 64, payload: payload))
        #expect(buffer.samples == [0.5, -0.125])
    }

    @Test("Extensible integer PCM and chunks before the data are handled")
    func extensibleInt() throws {
        let payload = Data([0x00, 0x40, 0x00, 0xC0])
        let buffer = try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 1, rate: 16_000, bits: 16, payload: payload, extensibleSubFormat: 1, extraChunk: true))
        #expect(buffer.samples == [0.5, -0.5])
    }

    @Test("A partial trailing frame is dropped")
    func partialFrame() throws {
        let buffer = try PCMBuffer(decoding: Data([0, 0x40, 0, 0x40, 0]), format: .integer(bits: 16), channels: 2, sampleRate: 8_000)
        #expect(buffer.samples == [0.5, 0.5])
    }

    @Test("Compressed or odd encodings are refused with a reason")
    func refused() {
        #expect(throws: WAVAudio.ParseError.unsupportedEncoding(0x55)) {
            try PCMBuffer(wav: WAVFixtures.wav(tag: 0x55, channels: 1, rate: 8_000, bits: 16, payload: Data(count: 4)))
        }
        #expect(throws: PCMBuffer.DecodingError.unsupportedSampleFormat(.integer(bits: 12))) {
            try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 1, rate: 8_000, bits: 12, payload: Data(count: 4)))
        }
        #expect(throws: PCMBuffer.DecodingError.invalidLayout(channels: 0, sampleRate: 8_000)) {
            try PCMBuffer(wav: WAVFixtures.wav(tag: 1, channels: 0, rate: 8_000, bits: 16, payload: Data(count: 4)))
        }
        #expect(throws: WAVAudio.ParseError.notRIFF) { try PCMBuffer(wav: Data("ID3 not a wav file".utf8)) }
    }

    @Test("Integer WAVAudio values convert directly")
    func fromWAVAudio() throws {
        let wav = WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data([0x00, 0x40]))
        let buffer = try PCMBuffer(wav)
        #expect(buffer.samples == [0.5])
        #expect(buffer.duration == 1.0 / 16_000)
    }
}
