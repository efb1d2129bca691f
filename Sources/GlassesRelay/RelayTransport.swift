public import Foundation
import FrameProtocol
public import Glasses
public import SibylCore

/// Glasses of either kind whose bytes a browser carries over Web Bluetooth (see `RelayMessage`).
///
/// The WebSocket side feeds what the browser says into ``receive(_:)`` and sends what `send` is
/// given. Monocle's writes go in pieces of the link's write length on channels 1 and 2, which the
/// page writes without response; each Frame write is one packet on channel 3, which the page writes
/// whole, with response, in order. A browser cannot read a Frame link's MTU, so when its
/// `connected` message carries none this transport asks Frame itself (a break, then
/// `print(frame.bluetooth.max_length())`, which answers the MTU − 4) before it reports the link
/// connected; if Frame does not answer, it reports the smallest MTU (23), whose writes fit any
/// link. A `connected` repeated while connected is reported again (with its MTU) or, without one,
/// taken as news already known. The same page also carries the glasses' bootloader while a
/// firmware install runs: ``bootloader`` is that link, fed the bootloader's messages.
public actor RelayTransport: GlassesTransport {
    /// How a Frame's MTU is asked for.
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

    /// Which glasses the page carries.
    public nonisolated let kind: GlassesKind
    public nonisolated let events: AsyncStream<GlassesTransportEvent>
    /// The glasses' bootloader, reached through the same page (for a firmware install).
    public nonisolated let bootloader: RelayBootloader
    private nonisolated let continuation: AsyncStream<GlassesTransportEvent>.Continuation
    private let send: @Sendable (RelayMessage) async throws -> Void
    private let options: Options
    /// The link's write length, once connected.
    private var writeLength: Int?
    /// Which `connected` the running MTU query answers; nil when none runs.
    private var asking: Int?
    private var generation = 0
    private let answer = ReplyWaiter<Int>()

    /// Glasses of `kind`; `send` delivers a message to the browser.
    public init(kind: GlassesKind, options: Options = Options(), send: @escaping @Sendable (RelayMessage) async throws -> Void) {
        self.kind = kind
        self.options = options
        self.send = send
        bootloader = RelayBootloader(send: send)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A message from the browser. A Frame query for the MTU has sent its first bytes when this returns.
    public func receive(_ message: RelayMessage) async {
        switch message {
        case .bytes(let channel, let payload):
            guard kind.channels.contains(channel) else { return } // the other kind's: not what this page carries
            if asking != nil {
                // The query's answer, or what the break stopped: not the connection's.
                if let length = Self.maximumLength(in: payload) { answer.offer(length + 4) }
                return
            }
            if writeLength != nil { continuation.yield(.received(channel, payload)) }
        case .connected(let length) where kind == .monocle:
            writeLength = length
            continuation.yield(.connected(maximumWriteLength: length))
        case .frameConnected(let mtu?) where kind == .frame:
            // Told again (a peer answers a connect request so): the link is up, at this MTU.
            asking = nil
            answer.fail(CancellationError())
            writeLength = mtu - 3
            continuation.yield(.connected(maximumWriteLength: mtu - 3))
        case .frameConnected(nil) where kind == .frame:
            // Already connected, or already asking: the MTU is known or about to be.
            guard writeLength == nil, asking == nil else { return }
            generation += 1
            asking = generation
            await askForMTU(generation)
        case .disconnected(let reason):
            lost(reason)
        case .bootloaderConnected, .bootloaderDisconnected, .bootloaderBytes:
            await bootloader.receive(message)
        case .connected, .frameConnected, .connectRequest, .disconnectRequest,
             .bootloaderConnectRequest, .bootloaderDisconnectRequest:
            break // the other kind's, or Sibyl's requests: not what this browser sends
        }
    }

    /// The browser's connection closed: the glasses are out of reach.
    public func browserLeft() async {
        lost("the browser closed the relay")
        continuation.finish()
        await bootloader.browserLeft()
    }

    public func connect() async throws {
        do {
            try await send(.connectRequest)
        } catch {
            throw GlassesError.transport("the browser relay is gone: \(error.localizedDescription)")
        }
    }

    public func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        guard let writeLength else { throw GlassesError.notConnected }
        guard kind.channels.contains(channel) else { throw GlassesError.transport("\(kind.displayName) glasses have no \(channel.rawValue) channel") }
        for piece in try channel.writes(of: bytes, maximumWriteLength: writeLength) {
            do {
                try await send(.bytes(channel, piece))
            } catch {
                throw GlassesError.disconnected("the browser relay is gone")
            }
        }
    }

    public func disconnect() async {
        try? await send(.disconnectRequest)
        lost("disconnected by Sibyl")
    }

    /// What `max_length()` printed, when `bytes` is that print.
    public static func maximumLength(in bytes: Data) -> Int? {
        guard bytes.first != FrameWrite.dataPrefix,
              let length = Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              RelayMessage.frameMTURange.contains(length + 4)
        else { return nil }
        return length
    }

    /// Breaks what runs (at once) and asks Frame for its MTU (meanwhile), then reports the link connected.
    private func askForMTU(_ generation: Int) async {
        do {
            try await send(.bytes(.frame, Data([FrameWrite.breakByte])))
        } catch {
            return // the browser is gone; `browserLeft` reports it
        }
        Task { await self.awaitMTU(generation) }
    }

    private func awaitMTU(_ generation: Int) async {
        var mtu: Int?
        let send = send
        attempts: for attempt in 1...max(1, options.attempts) {
            do {
                if attempt > 1 { try await send(.bytes(.frame, Data([FrameWrite.breakByte]))) }
                try await Task.sleep(for: options.breakPause)
                guard asking == generation else { return }
                mtu = try await answer.wait(for: "Frame's MTU", timeout: options.answerTimeout) {
                    try await send(.bytes(.frame, Data(Self.mtuQuery.utf8)))
                }
                break attempts
            } catch GlassesError.timeout {
                continue attempts
            } catch {
                break attempts // the browser is gone, or told the MTU itself
            }
        }
        guard asking == generation else { return }
        asking = nil
        let length = (mtu ?? RelayMessage.frameMTURange.lowerBound) - 3
        writeLength = length
        continuation.yield(.connected(maximumWriteLength: length))
    }

    private func lost(_ reason: String) {
        let wasConnected = writeLength != nil
        writeLength = nil
        asking = nil
        answer.fail(GlassesError.disconnected(reason))
        if wasConnected { continuation.yield(.disconnected(reason: reason)) }
    }
}
