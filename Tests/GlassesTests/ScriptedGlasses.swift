import Foundation
import Glasses
import SecureDFU
import SibylCore
import Synchronization
import TestEvents
import Testing

/// A link the test drives: connects (or fails as often as told), records writes, and reports what
/// the test says the glasses sent.
final class ScriptedTransport: GlassesTransport {
    let events: AsyncStream<GlassesTransportEvent>
    private let continuation: AsyncStream<GlassesTransportEvent>.Continuation
    private let state = Mutex<(failures: Int, connects: Int, up: Bool, writes: [Data])>((0, 0, false, []))
    let writeLength: Int

    init(writeLength: Int = 100, failingConnects: Int = 0) {
        self.writeLength = writeLength
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        state.withLock { $0.failures = failingConnects }
    }

    /// How many times the connection asked for a link.
    var connects: Int { state.withLock { $0.connects } }
    /// What was written, in order.
    var writes: [Data] { state.withLock { $0.writes } }

    func connect() async throws {
        let fails = state.withLock { state -> Bool in
            state.connects += 1
            guard state.failures == 0 else {
                state.failures -= 1
                return true
            }
            state.up = true
            return false
        }
        if fails { throw GlassesError.transport("nobody answers") }
        continuation.yield(.connected(maximumWriteLength: writeLength))
    }

    func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        try state.withLock { state in
            guard state.up else { throw GlassesError.notConnected }
            state.writes.append(bytes)
        }
    }

    func disconnect() async {
        drop("disconnected by Sibyl")
    }

    /// The link drops, as out of range or restarting glasses drop it.
    func drop(_ reason: String) {
        let wasUp = state.withLock { state in
            defer { state.up = false }
            return state.up
        }
        if wasUp { continuation.yield(.disconnected(reason: reason)) }
    }

    /// A notification from the glasses.
    func notify(_ text: String) {
        continuation.yield(.received(.data, Data(text.utf8)))
    }
}

/// Glasses whose firmware version the test sets, and which a bootloader updates.
final class ScriptedFirmware: Sendable {
    private let version: Mutex<String?>
    init(_ version: String?) { self.version = Mutex(version) }
    var current: String? {
        get { version.withLock { $0 } }
        set { version.withLock { $0 = newValue } }
    }
}

/// A driver whose glasses answer at once: firmware as scripted, the app up in two steps, each data
/// notification `ask:TEXT` a spoken request (its transfer reported first) and `cancel` a cancel.
actor ScriptedDriver: GlassesDriver {
    nonisolated let kind: GlassesKind
    nonisolated let bootloaderName = "TestBoot"
    nonisolated let expectedFirmware: String?
    let firmware: ScriptedFirmware
    /// Thrown by the next `prepare`, once.
    var failure: (any Error)?
    private(set) var prepared = 0
    private(set) var links: [GlassesLink] = []
    private(set) var linksLost: [String] = []
    private(set) var shown: [String] = []
    private(set) var thinking = 0
    private let transport: ScriptedTransport

    init(kind: GlassesKind = .monocle, transport: ScriptedTransport, firmware: ScriptedFirmware = ScriptedFirmware("v1"), expectedFirmware: String? = nil) {
        self.kind = kind
        self.transport = transport
        self.firmware = firmware
        self.expectedFirmware = expectedFirmware
    }

    func failNextPrepare(with error: any Error) {
        failure = error
    }

    func prepare(_ link: GlassesLink) async throws -> String? {
        prepared += 1
        links.append(link)
        await link.enter(.preparing(.checkingFirmware))
        if let failure {
            self.failure = nil
            throw failure
        }
        return firmware.current
    }

    func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws {
        transport.drop("restarting into the bootloader")
        throw GlassesError.disconnected("restarting")
    }

    func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo? {
        await link.enter(.uploadingApp(file: "main", index: 0, count: 1))
        try await link.write(Data("main".utf8), to: .serial)
        await link.enter(.starting)
        return GlassesDeviceInfo(firmware: firmware, app: "sha256:test", uploaded: true, maximumWriteLength: link.maximumWriteLength)
    }

    func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async {
        let text = String(decoding: bytes, as: UTF8.self)
        if text == "cancel" {
            await link.deliver(.cancel)
        } else if text.hasPrefix("ask:") {
            await link.transferStarted()
            await link.deliver(.spoken(audio: Data(text.dropFirst(4).utf8)))
        } else {
            await link.notice("ignored \(text)")
        }
    }

    func linkLost(_ reason: String) async {
        linksLost.append(reason)
    }

    func show(_ text: String, isError: Bool, link: GlassesLink) async throws {
        shown.append(isError ? "error: " + text : text)
    }

    func showThinking(_ link: GlassesLink) async {
        thinking += 1
    }
}

extension GlassesConnection {
    /// Runs the connection while `body` reads its events; stopped, and its run awaited, whatever
    /// the body does.
    nonisolated func whileRunning(_ body: (inout EventReader) async throws -> Void) async throws {
        var events = EventReader(self)
        let serving = Task { await self.run() }
        try await withTeardown { try await body(&events) } teardown: {
            await stop()
            serving.cancel()
            await serving.value
        }
    }
}

/// A connection's events, read in order as the test waits for them.
struct EventReader {
    private var iterator: AsyncStream<GlassesConnection.Event>.Iterator
    /// Every event read so far.
    private(set) var seen: [GlassesConnection.Event] = []

    init(_ connection: GlassesConnection) {
        iterator = connection.events.makeAsyncIterator()
    }

    struct Ended: Error, CustomStringConvertible {
        let what: String
        let seen: [GlassesConnection.Event]
        var description: String { "the events ended before \(what); seen: \(seen)" }
    }

    /// Reads up to the first event `pick` takes, and returns what it took.
    mutating func next<T>(_ what: String, _ pick: (GlassesConnection.Event) -> T?) async throws -> T {
        while let event = await iterator.next() {
            seen.append(event)
            if let value = pick(event) { return value }
        }
        throw Ended(what: what, seen: seen)
    }

    /// Reads up to the next `running` state.
    mutating func running() async throws -> GlassesDeviceInfo {
        try await next("running") { if case .state(let state) = $0 { state.deviceInfo } else { nil } }
    }

    /// Reads one event.
    mutating func one() async throws -> GlassesConnection.Event {
        try await next("an event") { $0 }
    }

    /// Reads to the end; true when the events end.
    mutating func toTheEnd() async -> Bool {
        while let event = await iterator.next() { seen.append(event) }
        return true
    }

    /// The states read so far.
    var states: [GlassesPhase] { seen.compactMap { if case .state(let state) = $0 { state.phase } else { nil } } }
    /// The notices read so far.
    var notices: [String] { seen.compactMap { if case .notice(let text) = $0 { text } else { nil } } }
}

extension GlassesConnection.Options {
    /// Reconnects without waiting long.
    static var quick: GlassesConnection.Options {
        var options = GlassesConnection.Options()
        options.reconnectDelay = .milliseconds(1)
        options.longestReconnectDelay = .milliseconds(4)
        return options
    }
}
