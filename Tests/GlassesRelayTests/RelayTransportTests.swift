import Foundation
import FrameProtocol
import Glasses
import GlassesRelay
import Synchronization
import Testing

/// The relay transport against a stand-in page: what it sends the browser, and what it reports.
@Suite(.timeLimit(.minutes(10)))
struct RelayTransportTests {
    /// What the transport sent the page, in order.
    final class Page: Sendable {
        let sent = Mutex<[RelayMessage]>([])
        var messages: [RelayMessage] { sent.withLock { $0 } }
        func send(_ message: RelayMessage) { sent.withLock { $0.append(message) } }
    }

    @Test func monoclesWritesGoInPiecesOfTheWriteLengthOnTheirChannel() async throws {
        let page = Page()
        let transport = RelayTransport(kind: .monocle) { page.send($0) }
        var events = transport.events.makeAsyncIterator()
        await #expect(throws: GlassesError.notConnected) { try await transport.write(Data([1]), to: .serial) }
        try await transport.connect()
        #expect(page.messages == [.connectRequest])
        // Bytes before `connected`, and the other kind's, are not the connection's.
        await transport.receive(.bytes(.serial, Data("early".utf8)))
        await transport.receive(.connected(maximumWriteLength: 20))
        #expect(await events.next() == .connected(maximumWriteLength: 20))
        await transport.receive(.bytes(.frame, Data([9])))
        await transport.receive(.bytes(.data, Data("rdy:".utf8)))
        #expect(await events.next() == .received(.data, Data("rdy:".utf8)))
        let code = Data(repeating: 0x41, count: 45)
        try await transport.write(code, to: .serial)
        #expect(page.messages.dropFirst() == [.bytes(.serial, code.prefix(20)), .bytes(.serial, code.dropFirst(20).prefix(20)), .bytes(.serial, code.suffix(5))])
        await #expect(throws: GlassesError.self) { try await transport.write(Data([1]), to: .frame) }
        await transport.disconnect()
        #expect(page.messages.last == .disconnectRequest)
        #expect(await events.next() == .disconnected(reason: "disconnected by Sibyl"))
        await transport.browserLeft()
        #expect(await events.next() == nil)
    }

    @Test func withoutAnAnswerFramesSmallestMTUIsAssumed() async throws {
        let page = Page()
        var options = RelayTransport.Options()
        options.answerTimeout = .milliseconds(50)
        options.breakPause = .milliseconds(1)
        options.attempts = 2
        let transport = RelayTransport(kind: .frame, options: options) { page.send($0) }
        var events = transport.events.makeAsyncIterator()
        // Frame's chatter that is not a number (the break's error) does not count as the answer.
        await transport.receive(.frameConnected(mtu: nil))
        #expect(page.messages == [.bytes(.frame, Data([FrameWrite.breakByte]))], "the break goes out before `receive` returns")
        await transport.receive(.bytes(.frame, Data("main.lua:3: break signal".utf8)))
        #expect(await events.next() == .connected(maximumWriteLength: 20))
        #expect(page.messages.filter { $0 == .bytes(.frame, Data(RelayTransport.mtuQuery.utf8)) }.count == 2)
        await #expect(throws: GlassesError.self) { try await transport.write(Data(repeating: 0x41, count: 21), to: .frame) }
        try await transport.write(Data(repeating: 0x41, count: 20), to: .frame)

        // Told again without an MTU: nothing new, nothing asked (an ask would have sent its break by now).
        let asked = page.messages.count
        await transport.receive(.frameConnected(mtu: nil))
        #expect(page.messages.count == asked)
        // A peer that knows the MTU says so; notifications then reach the connection, the first one
        // next: nothing was reported in between.
        await transport.receive(.frameConnected(mtu: 185))
        #expect(await events.next() == .connected(maximumWriteLength: 182))
        await transport.receive(.bytes(.frame, Data([0x01, 0x42])))
        #expect(await events.next() == .received(.frame, Data([0x01, 0x42])))
        await transport.receive(.bytes(.serial, Data([1]))) // Monocle's: ignored
        await transport.receive(.disconnected(reason: "gone"))
        #expect(await events.next() == .disconnected(reason: "gone"))
        await #expect(throws: GlassesError.self) { try await transport.write(Data([0x03]), to: .frame) }
        await transport.browserLeft()
        #expect(await events.next() == nil)
    }

    @Test func framesAnswerGivesTheMTU() async throws {
        let page = Page()
        var options = RelayTransport.Options()
        options.breakPause = .milliseconds(1)
        let relayed = Mutex<RelayTransport?>(nil)
        let transport = RelayTransport(kind: .frame, options: options) { message in
            page.send(message)
            // Frame answers the query with the MTU − 4, back through the page, as a browser carries it.
            guard message == .bytes(.frame, Data(RelayTransport.mtuQuery.utf8)), let transport = relayed.withLock({ $0 }) else { return }
            Task { await transport.receive(.bytes(.frame, Data("96".utf8))) }
        }
        relayed.withLock { $0 = transport }
        var events = transport.events.makeAsyncIterator()
        await transport.receive(.frameConnected(mtu: nil))
        #expect(await events.next() == .connected(maximumWriteLength: 97))
        #expect(page.messages == [.bytes(.frame, Data([FrameWrite.breakByte])), .bytes(.frame, Data(RelayTransport.mtuQuery.utf8))])
    }

    @Test func theMTUAnswerIsANumberThatFitsALink() {
        #expect(RelayTransport.maximumLength(in: Data("243".utf8)) == 243)
        #expect(RelayTransport.maximumLength(in: Data(" 96\n".utf8)) == 96)
        #expect(RelayTransport.maximumLength(in: Data("-1".utf8)) == nil)
        #expect(RelayTransport.maximumLength(in: Data([0x01]) + Data("243".utf8)) == nil, "data, not a print")
        #expect(RelayTransport.maximumLength(in: Data("nil".utf8)) == nil)
    }
}
