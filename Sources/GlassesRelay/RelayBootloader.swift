public import Foundation
public import Glasses
public import SecureDFU

/// The glasses' bootloader (Monocle's `DfuTarg`, Frame's "Frame Update") as a browser reaches it
/// over Web Bluetooth, on the same relay socket as the glasses (see `RelayMessage`): what a Secure
/// DFU client installs a firmware package through when the page, not this machine, holds the radio.
///
/// `connect()` asks the page and waits for its answer: the page may first have to ask the person
/// to choose the bootloader in the browser's chooser (a new Bluetooth device needs a click), so the
/// wait is long. The page's `bootloaderConnected` then becomes `.connected`, its control-point
/// notifications `.notification`, and a `bootloaderDisconnected` on a live link `.disconnected`.
public actor RelayBootloader: DFUTransport {
    public nonisolated let events: AsyncStream<DFUTransportEvent>
    private nonisolated let continuation: AsyncStream<DFUTransportEvent>.Continuation
    private let send: @Sendable (RelayMessage) async throws -> Void
    private let connectTimeout: Duration
    /// The link's write length while the page holds the bootloader.
    private var writeLength: Int?
    private let answer = ReplyWaiter<Int>()

    /// `send` delivers a message to the browser; `connectTimeout` is how long the page may take to
    /// reach the bootloader (the person choosing it included).
    public init(connectTimeout: Duration = .seconds(180), send: @escaping @Sendable (RelayMessage) async throws -> Void) {
        self.send = send
        self.connectTimeout = connectTimeout
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A bootloader message from the browser; others are not this transport's.
    public func receive(_ message: RelayMessage) {
        switch message {
        case .bootloaderConnected(let length):
            writeLength = length
            answer.offer(length)
            continuation.yield(.connected(maximumWriteLength: length))
        case .bootloaderBytes(.control, let bytes):
            if writeLength != nil { continuation.yield(.notification(bytes)) }
        case .bootloaderDisconnected(let reason):
            lost(reason)
        default:
            break
        }
    }

    /// The browser's connection closed: the bootloader is out of reach.
    public func browserLeft() {
        lost("the browser closed the relay")
        continuation.finish()
    }

    public func bootloaderInReach() async -> Bool {
        writeLength != nil
    }

    public func connect() async throws {
        let send = send
        do {
            _ = try await answer.wait(for: "the browser to reach the glasses' bootloader", timeout: connectTimeout) {
                try await send(.bootloaderConnectRequest)
            }
        } catch GlassesError.timeout {
            throw DFUError.bootloaderNotFound("the browser did not reach it in \(connectTimeout)")
        } catch GlassesError.disconnected(let reason) {
            throw DFUError.bootloaderNotFound(reason)
        } catch let error as GlassesError {
            throw DFUError.bootloaderNotFound(error.localizedDescription)
        }
    }

    public func writeControl(_ bytes: Data) async throws {
        try await write(.control, bytes)
    }

    public func writePacket(_ bytes: Data) async throws {
        try await write(.packet, bytes)
    }

    public func disconnect() async {
        guard writeLength != nil else { return }
        try? await send(.bootloaderDisconnectRequest)
        lost("disconnected by Sibyl")
    }

    private func write(_ channel: RelayMessage.BootloaderChannel, _ bytes: Data) async throws {
        guard let writeLength else { throw DFUError.disconnected("the browser does not hold the bootloader") }
        for piece in bytes.pieces(of: writeLength) {
            do {
                try await send(.bootloaderBytes(channel, piece))
            } catch {
                throw DFUError.disconnected("the browser relay is gone")
            }
        }
    }

    private func lost(_ reason: String) {
        // A connect under way hears why the page could not reach the bootloader.
        answer.fail(GlassesError.disconnected(reason))
        guard writeLength != nil else { return }
        writeLength = nil
        continuation.yield(.disconnected(reason: reason))
    }
}
