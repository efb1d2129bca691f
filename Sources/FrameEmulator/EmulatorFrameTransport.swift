import Foundation
import Glasses
import Synchronization

/// A transport to a virtual Frame: what `sibyl glasses … --emulator --kind frame` and the tests
/// connect to.
public final class EmulatorFrameTransport: GlassesTransport {
    public let events: AsyncStream<GlassesTransportEvent>
    private let continuation: AsyncStream<GlassesTransportEvent>.Continuation
    public let emulator: FrameEmulator
    /// The MTU this "central" exchanges on every connection.
    public let mtu: Int
    private let forwarding: Task<Void, Never>
    private let linkWatch: Int
    /// Whether this host holds a link (so a drop by the Frame concerns it).
    private let linked = LinkFlag()

    private final class LinkFlag: Sendable {
        let value = Mutex(false)
    }

    public init(emulator: FrameEmulator, mtu: Int = 247) {
        self.emulator = emulator
        self.mtu = mtu
        let (events, continuation) = AsyncStream<GlassesTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let notifications = emulator.notifications
        forwarding = Task {
            for await notification in notifications { continuation.yield(.received(.frame, notification)) }
        }
        // The Frame drops the link itself when it restarts into its bootloader.
        let linked = self.linked
        linkWatch = emulator.core.watchLink { reason in
            if linked.value.withLock({ was in defer { was = false }; return was }) {
                continuation.yield(.disconnected(reason: reason))
            }
        }
    }

    deinit {
        emulator.core.unwatchLink(linkWatch)
        forwarding.cancel()
        continuation.finish()
    }

    public func connect() async throws {
        if emulator.powerState == .bootloader {
            throw GlassesError.transport("the virtual Frame is in its bootloader (\(FrameEmulator.bootloaderName)), not advertising as a Frame")
        }
        do {
            try emulator.connect(mtu: mtu)
        } catch {
            throw GlassesError.transport("the virtual Frame does not answer: \(error.localizedDescription)")
        }
        linked.value.withLock { $0 = true }
        continuation.yield(.connected(maximumWriteLength: mtu - 3))
    }

    public func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        guard channel == .frame else { throw GlassesError.transport("a Frame has no \(channel.rawValue) channel") }
        guard emulator.isConnected else { throw GlassesError.disconnected("the virtual Frame is not connected") }
        do {
            try await emulator.write(bytes)
        } catch FrameEmulatorError.notConnected {
            throw GlassesError.disconnected("the virtual Frame is not connected")
        } catch {
            throw GlassesError.transport(error.localizedDescription)
        }
    }

    public func disconnect() async {
        drop(reason: "closed")
    }

    /// Drops the link as walking out of range would; the connection sees `.disconnected`.
    public func drop(reason: String) {
        linked.value.withLock { $0 = false }
        emulator.disconnect()
        continuation.yield(.disconnected(reason: reason))
    }
}
