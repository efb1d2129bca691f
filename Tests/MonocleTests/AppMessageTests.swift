import Foundation
import Monocle
import Testing

@Suite(.timeLimit(.minutes(10))) struct AppMessageTests {
    @Test func packetsRoundTrip() throws {
        let message = AppMessage(.audioData, Data([0x80, 0x7F, 0x00]))
        #expect(message.packet == Data("dat:".utf8) + [0x80, 0x7F, 0x00])
        #expect(AppMessage(packet: message.packet) == message)
        #expect(AppMessage(packet: Data("rdy:".utf8)) == AppMessage(.ready))
        #expect(AppMessage(packet: Data("xyz:abc".utf8)) == nil)
        #expect(AppMessage(packet: Data("rd".utf8)) == nil)
    }

    @Test func textChunksFitTheLinkInBytesAndKeepCharactersWhole() throws {
        let text = String(repeating: "Grüße aus 日本 🇯🇵 — ", count: 30)
        for length in [20, 23, 100, 253] {
            let chunks = AppMessage.chunks(of: text, as: .response, maximumLength: length)
            for chunk in chunks {
                #expect(chunk.packet.count <= length)
                #expect(chunk.command == .response)
                // Every chunk decodes on its own: no character was cut.
                #expect(String(data: chunk.payload, encoding: .utf8) != nil)
            }
            #expect(chunks.map(\.text).joined() == text)
        }
    }

    @Test func emptyTextIsOneEmptyMessage() {
        #expect(AppMessage.chunks(of: "", as: .error, maximumLength: 253) == [AppMessage(.error)])
    }

    @Test func aCharacterLargerThanAChunkIsSplitBetweenScalars() {
        let family = "👨‍👩‍👧‍👦" // 25 bytes, 7 scalars
        let chunks = AppMessage.chunks(of: family, as: .response, maximumLength: 14)
        #expect(chunks.count > 1)
        #expect(chunks.allSatisfy { $0.packet.count <= 14 && String(data: $0.payload, encoding: .utf8) != nil })
        #expect(chunks.map(\.text).joined() == family)
    }
}

@Suite(.timeLimit(.minutes(10))) struct GlassesRequestAssemblerTests {
    @Test func audioOfAnyLengthMakesASpokenRequest() {
        var assembler = GlassesRequestAssembler()
        #expect(assembler.consume(AppMessage(.ready)) == nil)
        #expect(assembler.consume(AppMessage(.audioStart)) == nil)
        #expect(assembler.consume(AppMessage(.audioData, Data([1, 2, 3]))) == nil)
        #expect(assembler.consume(AppMessage(.audioData, Data([4, 5]))) == nil)
        // Five bytes: an odd count, which the phone apps dropped silently.
        #expect(assembler.consume(AppMessage(.audioEnd)) == .spoken(audio: Data([1, 2, 3, 4, 5])))
        #expect(assembler.consume(AppMessage(.audioEnd)) == .spoken(audio: Data()))
    }

    @Test func aPhotoThenItsSpokenPrompt() {
        var assembler = GlassesRequestAssembler()
        for message in [AppMessage(.imageStart), AppMessage(.imageData, Data([0xFF, 0xD8])), AppMessage(.imageData, Data([0xFF, 0xD9])), AppMessage(.imageEnd), AppMessage(.audioData, Data([9]))] {
            #expect(assembler.consume(message) == nil)
        }
        #expect(assembler.consume(AppMessage(.audioEnd)) == .photo(jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]), audio: Data([9])))
        // The next question is audio only.
        _ = assembler.consume(AppMessage(.audioStart))
        #expect(assembler.consume(AppMessage(.audioEnd)) == .spoken(audio: Data()))
    }

    @Test func cancelDropsWhatWasCollected() {
        var assembler = GlassesRequestAssembler()
        _ = assembler.consume(AppMessage(.audioStart))
        _ = assembler.consume(AppMessage(.audioData, Data([1])))
        #expect(assembler.consume(AppMessage(.cancel)) == .cancel)
        #expect(assembler.consume(AppMessage(.audioEnd)) == .spoken(audio: Data()))
    }
}
