import FrameGlasses
import Foundation
import Synchronization

/// A ``FrameTransport`` to a virtual Frame: what `sibyl glasses … --emulator` and the tests
/// connect the controller to.
public final class EmulatorFrameTransport: FrameTransport {
    public let events: AsyncStream<FrameTransportEvent>
    private let continuation: AsyncStream<FrameTransportEvent>.Continuation
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
        let (events, continuation) = AsyncStream<FrameTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let notifications = emulator.notifications
        forwarding = Task {
            for await notification in notifications { continuation.yield(.received(notification)) }
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
            throw FrameError.transport("the virtual Frame is in its bootloader (\(FrameEmulator.bootloaderName)), not advertising as a Frame")
        }
        do {
            try emulator.connect(mtu: mtu)
        } catch {
            throw FrameError.transport("the virtual Frame does not answer: \(error.localizedDescription)")
        }
        linked.value.withLock { $0 = true }
        continuation.yield(.connected(mtu: mtu))
    }

    public func write(_ bytes: Data) async throws {
        guard emulator.isConnected else { throw FrameError.disconnected("the virtual Frame is not connected") }
        do {
            try await emulator.write(bytes)
        } catch FrameEmulatorError.notConnected {
            throw FrameError.disconnected("the virtual Frame is not connected")
        } catch {
            throw FrameError.transport(error.localizedDescription)
        }
    }

    public func disconnect() async {
        drop(reason: "closed")
    }

    /// Drops the link as walking out of range would; the controller sees `.disconnected`.
    public func drop(reason: String) {
        linked.value.withLock { $0 = false }
        emulator.disconnect()
        continuation.yield(.disconnected(reason: reason))
    }
}
