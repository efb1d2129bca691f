import Foundation
import FrameOracle
import Testing
@testable import FrameProtocol

/// Sibyl's packers, message chunker and stream assemblers give the bytes frame-msg's and
/// frame-ble's own Python code gives, for the same inputs.
@Suite(.timeLimit(.minutes(10)), .enabled(if: FrameOracle.available, "needs the Frame host libraries' venv (scripts/frame/setup.sh)"))
struct OracleTests {
    @Test func messagesSplitIntoTheSameWritesAtEveryMTUAndSize() async throws {
        let vectors = try await OracleVectors.load()
        #expect(vectors.messages.count == 24)
        for vector in vectors.messages {
            let payload = Data((0..<vector.size).map { UInt8(truncatingIfNeeded: $0 * 73 + 11) })
            let message = try FrameMessage(code: UInt8(vector.code), payload: payload)
            let writes = try message.writes(limits: FrameLimits(mtu: vector.mtu))
            #expect(writes.count == vector.writes.count, "MTU \(vector.mtu), \(vector.size) bytes")
            #expect(writes == vector.writes.map(Data.init(hex:)), "MTU \(vector.mtu), \(vector.size) bytes")
            #expect(writes.allSatisfy { $0.count <= vector.mtu - 3 })
        }
    }

    @Test func messageBodiesArePackedTheSame() async throws {
        let vectors = try await OracleVectors.load()
        for vector in vectors.plain_text {
            let f = vector.fields
            let text = FramePlainText(f["text"]!.string, x: UInt16(f["x"]!.int), y: UInt16(f["y"]!.int), paletteOffset: UInt8(f["palette_offset"]!.int), spacing: UInt8(f["spacing"]!.int))
            #expect(text.packed().hex == vector.packed)
        }
        for vector in vectors.capture {
            let f = vector.fields
            let settings = FrameCaptureSettings(resolution: f["resolution"]!.int, quality: FrameCameraQuality(rawValue: f["quality"]!.int)!, pan: f["pan"]!.int, raw: f["raw"]!.bool)
            #expect(settings.packed().hex == vector.packed, "\(f)")
        }
        for vector in vectors.auto_exposure {
            let f = vector.fields
            let settings = FrameAutoExposureSettings(
                metering: .init(rawValue: f["metering"]!.int)!, exposure: f["exposure"]!.double, exposureSpeed: f["exposure_speed"]!.double,
                shutterLimit: f["shutter_limit"]!.int, analogGainLimit: f["analog_gain_limit"]!.int, whiteBalanceSpeed: f["white_balance_speed"]!.double,
                rgbGainLimit: f["rgb_gain_limit"]!.int
            )
            #expect(settings.packed().hex == vector.packed, "\(f)")
        }
        for vector in vectors.manual_exposure {
            let f = vector.fields
            let settings = FrameManualExposureSettings(shutter: f["shutter"]!.int, analogGain: f["analog_gain"]!.int, redGain: f["red"]!.int, greenGain: f["green"]!.int, blueGain: f["blue"]!.int)
            #expect(settings.packed().hex == vector.packed, "\(f)")
        }
        for vector in vectors.sprite_coords {
            let f = vector.fields
            let coordinates = FrameSpriteCoordinates(code: UInt8(f["code"]!.int), x: UInt16(f["x"]!.int), y: UInt16(f["y"]!.int), paletteOffset: UInt8(f["offset"]!.int))
            #expect(coordinates.packed().hex == vector.packed)
        }
        for vector in vectors.code {
            #expect(FrameCode(UInt8(vector.fields["value"]!.int)).packed().hex == vector.packed)
        }
        #expect(vectors.sprite.count == 4)
        for vector in vectors.sprite {
            let f = vector.fields
            let sprite = FrameSprite(width: UInt16(f["width"]!.int), height: UInt16(f["height"]!.int), palette: Array(Data(hex: f["palette"]!.string)), pixels: Array(Data(hex: f["pixels"]!.string)))
            #expect(sprite.packed().hex == vector.packed, "\(f)")
        }
    }

    @Test func streamsAssembleAndAudioBecomesTheSameWAV() async throws {
        let vectors = try await OracleVectors.load()
        for (name, stream) in vectors.streams {
            var assembler = name == "photo" ? FrameStreamAssembler.photo() : .audio()
            var results: [Data] = []
            for notification in stream.notifications {
                if let whole = assembler.add(Data(hex: notification)) { results.append(whole) }
            }
            #expect(results == [Data(hex: stream.assembled)], "\(name)")
        }
        for vector in vectors.wav {
            let wav = FrameAudio.wav(pcm: Data(hex: vector.pcm), sampleRate: vector.rate, bitsPerSample: vector.bits)
            #expect(wav.hex == vector.wav, "\(vector.bits)-bit at \(vector.rate) Hz")
        }
    }
}
