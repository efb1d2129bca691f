import FrameProtocol
import Foundation
import Monocle
import Synchronization

/// A ``FrameTransport`` whose bytes a browser carries over Web Bluetooth: `RelayTransport`'s Frame twin.
///
/// The WebSocket side feeds what the browser says into ``receive(_:)`` and sends what `send` is
/// given: each write is one `RelayMessage.frameBytes` packet, which the page writes whole, with
/// response, in order. A browser cannot read the link's MTU, so when its `connected` message
/// carries none this transport asks Frame itself (a break, then `print(frame.bluetooth.max_length())`,
/// which answers the MTU − 4) before it reports `.connected`; if Frame does not answer, it reports
/// the smallest MTU (23), whose writes fit any link. A `connected` repeated while connected is
/// reported again (with its MTU) or, without one, taken as news already known.
public final class FrameRelayTransport: FrameTransport {
    public let events: AsyncStream<FrameTransportEvent>
    private let continuation: AsyncStream<FrameTransportEvent>.Continuation
    private let send: @Sendable (RelayMessage) async throws -> Void
    private let options: Options
    private let link = Mutex(Link())

    /// How the MTU is asked for.
    public struct Options: Sendable {
        /// How long to wait for each answer.
        public var answerTimeout: Duration = .seconds(3)
        /// How many times to ask before settling on the smallest MTU.
        public var attempts = 3
        /// The pause after the break, for the firmware to stop what runs.
        public var breakPause: Duration = .milliseconds(100)

        public init() {}
    }

    /// The Lua chunk whose printed answer is the MTU − 4.
    public static let mtuQuery = "print(frame.bluetooth.max_length())"

    private struct Link {
        /// The MTU once connected.
        var mtu: Int?
        /// Which connection a running MTU query belongs to; nil when none runs.
        var asking: Int?
        var generation = 0
        /// The MTU Frame printed, while asking.
        var answer: Int?
    }

    /// `send` delivers a message to the browser.
    public init(options: Options = Options(), send: @escaping @Sendable (RelayMessage) async throws -> Void) {
        self.send = send
        self.options = options
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A message from the browser.
    public func receive(_ message: RelayMessage) {
        switch message {
        case .frameBytes(let bytes):
            let forward = link.withLock { link -> Bool in
                if link.asking != nil {
                    if link.answer == nil, let length = Self.maximumLength(in: bytes) { link.answer = length + 4 }
                    return false // the query's answer, or what the break stopped, is not the controller's
                }
                return link.mtu != nil
            }
            if forward { continuation.yield(.received(bytes)) }
        case .frameConnected(let mtu?):
            // Told again (a peer answers a connect request so): the link is up, at this MTU.
            link.withLock { link in
                link.mtu = mtu
                link.asking = nil
            }
            continuation.yield(.connected(mtu: mtu))
        case .frameConnected(nil):
            // Already connected, or already asking: the MTU is known or about to be.
            let generation = link.withLock { link -> Int? in
                guard link.mtu == nil, link.asking == nil else { return nil }
                link.generation += 1
                link.asking = link.generation
                link.answer = nil
                return link.generation
            }
            if let generation { Task { await self.askForMTU(generation) } }
        case .disconnected(let reason):
            lost(reason)
        case .bytes, .connected, .connectRequest, .disconnectRequest:
            break // Monocle's, or Sibyl's requests: not what a browser relaying Frame sends
        }
    }

    /// The browser's connection closed: the glasses are out of reach.
    public func browserLeft() {
        lost("the browser closed the relay")
        continuation.finish()
    }

    public func connect() async throws {
        do {
            try await send(.connectRequest)
        } catch {
            throw FrameError.transport("the browser relay is gone: \(error.localizedDescription)")
        }
    }

    public func write(_ bytes: Data) async throws {
        guard let mtu = link.withLock({ $0.mtu }) else { throw FrameError.notConnected }
        guard bytes.count <= FrameLimits(mtu: mtu).maximumLuaLength else {
            throw FrameError.transport("a write of \(bytes.count) bytes does not fit the link (MTU \(mtu))")
        }
        do {
            try await send(.frameBytes(bytes))
        } catch {
            throw FrameError.disconnected("the browser relay is gone")
        }
    }

    public func disconnect() async {
        try? await send(.disconnectRequest)
        lost("disconnected by Sibyl")
    }

    /// Breaks whatever runs and asks Frame for its MTU, then reports the link connected.
    private func askForMTU(_ generation: Int) async {
        func current() -> Bool { link.withLock { $0.asking == generation } }
        var mtu: Int?
        attempts: for _ in 0..<max(1, options.attempts) {
            do {
                try await send(.frameBytes(Data([FrameWrite.breakByte])))
                try await Task.sleep(for: options.breakPause)
                try await send(.frameBytes(Data(Self.mtuQuery.utf8)))
            } catch {
                break attempts // the browser is gone; `browserLeft` reports it
            }
            let deadline = ContinuousClock.now + options.answerTimeout
            while ContinuousClock.now < deadline {
                guard current() else { return }
                if let answer = link.withLock({ $0.answer }) {
                    mtu = answer
                    break attempts
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let connected = link.withLock { link -> Int? in
            guard link.asking == generation else { return nil }
            link.asking = nil
            link.mtu = mtu ?? RelayMessage.frameMTURange.lowerBound
            return link.mtu
        }
        if let connected { continuation.yield(.connected(mtu: connected)) }
    }

    /// What `max_length()` printed, when `bytes` is that print.
    public static func maximumLength(in bytes: Data) -> Int? {
        guard bytes.first != FrameWrite.dataPrefix,
              let length = Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              RelayMessage.frameMTURange.contains(length + 4)
        else { return nil }
        return length
    }

    private func lost(_ reason: String) {
        let wasConnected = link.withLock { link -> Bool in
            defer {
                link.mtu = nil
                link.asking = nil
            }
            return link.mtu != nil
        }
        if wasConnected { continuation.yield(.disconnected(reason: reason)) }
    }
}
