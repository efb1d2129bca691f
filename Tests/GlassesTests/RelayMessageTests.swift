import Foundation
import Glasses
import Testing

/// The relay protocol's messages: Monocle's as they always were, and Frame's channel 3 and `connected`.
@Suite(.timeLimit(.minutes(10)))
struct RelayMessageTests {
    @Test func monocleMessagesKeepTheirWireForm() throws {
        #expect(RelayMessage.connected(maximumWriteLength: 253).text == #"{"maxWriteLength":253,"type":"connected"}"#)
        #expect(try RelayMessage(text: #"{"type":"connected","maxWriteLength":253}"#) == .connected(maximumWriteLength: 253))
        #expect(try RelayMessage(text: #"{"type":"connected","kind":"monocle","maxWriteLength":100}"#) == .connected(maximumWriteLength: 100))
        #expect(RelayMessage.bytes(.serial, Data([9])).binary == Data([1, 9]))
        #expect(RelayMessage.bytes(.data, Data([9])).binary == Data([2, 9]))
        for message in [RelayMessage.connected(maximumWriteLength: 253), .disconnected(reason: "out of range"), .connectRequest, .disconnectRequest] {
            #expect(try RelayMessage(text: try #require(message.text)) == message)
        }
    }

    @Test func frameBytesTravelOnChannelThree() throws {
        let packet = RelayMessage.bytes(.frame, Data([0x01, 0x10, 0x20]))
        #expect(packet.binary == Data([3, 0x01, 0x10, 0x20]))
        #expect(packet.text == nil)
        #expect(try RelayMessage(binary: Data([3, 0x03])) == .bytes(.frame, Data([0x03])))
        #expect(try RelayMessage(binary: Data([3])) == .bytes(.frame, Data()))
        #expect(throws: RelayError.self) { try RelayMessage(binary: Data([6, 1])) }
        #expect(throws: RelayError.self) { try RelayMessage(binary: Data()) }
    }

    @Test func aFramePageSaysConnectedWithItsKindAndMaybeTheMTU() throws {
        #expect(RelayMessage.frameConnected(mtu: nil).text == #"{"kind":"frame","type":"connected"}"#)
        #expect(RelayMessage.frameConnected(mtu: 247).text == #"{"kind":"frame","mtu":247,"type":"connected"}"#)
        #expect(try RelayMessage(text: #"{"type":"connected","kind":"frame"}"#) == .frameConnected(mtu: nil))
        #expect(try RelayMessage(text: #"{"type":"connected","kind":"frame","mtu":185}"#) == .frameConnected(mtu: 185))
        #expect(RelayMessage.frameConnected(mtu: 185).binary == nil)
        // Out of range, not a number, or glasses Sibyl does not know.
        #expect(throws: RelayError.self) { try RelayMessage(text: #"{"type":"connected","kind":"frame","mtu":5}"#) }
        #expect(throws: RelayError.self) { try RelayMessage(text: #"{"type":"connected","kind":"frame","mtu":"big"}"#) }
        #expect(throws: RelayError.self) { try RelayMessage(text: #"{"type":"connected","kind":"halo"}"#) }
        // A Frame page's connected message needs no maxWriteLength; a Monocle's still does.
        #expect(throws: RelayError.self) { try RelayMessage(text: #"{"type":"connected"}"#) }
    }
}
