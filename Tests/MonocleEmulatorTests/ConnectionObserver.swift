import FrameGlasses
import Glasses
import Monocle
import SibylTestSupport

/// Records what a connection reports, Monocle's or Frame's, as it happens; waits for what it
/// reports are woken by each event.
final class ConnectionObserver: Sendable {
    /// Everything reported so far, and whether the connection's events have ended.
    private let log = Observed<(events: [GlassesConnection.Event], ended: Bool)>(([], false))
    let onState: @Sendable (GlassesState) async -> Void

    init(onState: @escaping @Sendable (GlassesState) async -> Void = { _ in }) {
        self.onState = onState
    }

    func follow(_ connection: GlassesConnection) -> Task<Void, Never> {
        Task {
            for await event in connection.events {
                log.update { $0.events.append(event) }
                guard case .state(let state) = event else { continue }
                await onState(state)
            }
            log.update { $0.ended = true }
        }
    }

    var events: [GlassesConnection.Event] { log.value.events }
    var states: [GlassesPhase] { Self.states(in: events) }
    var notices: [String] { events.compactMap { if case .notice(let text) = $0 { text } else { nil } } }
    var failures: [String] { events.compactMap { if case .updateFailed(let reason) = $0 { reason } else { nil } } }
    var requests: [GlassesRequest] { events.compactMap { if case .request(let request) = $0 { request } else { nil } } }
    /// What the glasses reported each time their app came up.
    var runs: [GlassesDeviceInfo] { Self.runs(in: events) }

    static func states(in events: [GlassesConnection.Event]) -> [GlassesPhase] {
        events.compactMap { if case .state(let state) = $0 { state.phase } else { nil } }
    }

    static func runs(in events: [GlassesConnection.Event]) -> [GlassesDeviceInfo] {
        states(in: events).compactMap { if case .running(let info) = $0 { info } else { nil } }
    }

    /// Waits for the `count`-th `running` state; the limit is a ceiling against hangs only (a fresh
    /// clone's first run, the whole suite on 2 cores, was still uploading the app to the virtual
    /// Frame through the relay at 300 s).
    func running(_ count: Int = 1, timeout: Duration = .seconds(540)) async throws -> GlassesDeviceInfo {
        let timedOut = { GlassesError.timeout(waitingFor: "running #\(count) after \(self.states), notices \(self.notices)", after: timeout) }
        do {
            return try await log.wait(for: "running #\(count)", within: timeout) { log in
                let runs = Self.runs(in: log.events)
                if runs.count >= count { return runs[count - 1] }
                if log.ended { throw timedOut() }
                return nil
            }
        } catch is WaitedInVain {
            throw timedOut()
        }
    }

    /// Waits until `check` gives a value (what it looks at may be the connection's events or
    /// anything else, such as the glasses' display, which reports no events: it is looked at until
    /// it does); the limit is a ceiling against hangs only.
    func until<T>(_ what: String, timeout: Duration = .seconds(300), _ check: () -> T?) async throws -> T {
        do {
            return try await eventually(within: timeout, what) { check() }
        } catch {
            throw GlassesError.timeout(waitingFor: "\(what) after \(states), notices \(notices)", after: timeout)
        }
    }
}

extension GlassesConnection {
    /// Runs the connection while `body` looks on through `observer`, and stops it after whatever
    /// happens, awaiting the end of its run and of the observer's following.
    nonisolated func serve<T>(observer: ConnectionObserver = ConnectionObserver(), _ body: (ConnectionObserver) async throws -> T) async throws -> T {
        let following = observer.follow(self)
        let serving = Task { await self.run() }
        return try await withTeardown { try await body(observer) } teardown: {
            await stop()
            serving.cancel()
            following.cancel()
            _ = await (serving.value, following.value)
        }
    }
}

extension GlassesConnection.Options {
    /// What the emulator tests connect with.
    static var fast: GlassesConnection.Options {
        var options = GlassesConnection.Options()
        options.dfu.reconnectDelay = .milliseconds(20)
        return options
    }
}

extension MonocleDriver.Options {
    /// Short pauses: the virtual Monocle needs no time to breathe.
    static var fast: MonocleDriver.Options {
        var options = MonocleDriver.Options()
        options.connectDelay = .milliseconds(20)
        options.settle = .milliseconds(60)
        return options
    }
}

extension FrameDriver.Options {
    /// Short pauses, long timeouts: a loaded machine holds the virtual Frame back, it never loses a reply.
    static var fast: FrameDriver.Options {
        var options = FrameDriver.Options()
        options.signalPause = .milliseconds(30)
        // A machine with a load of 30 on two cores kept a reply waiting past 20 s.
        options.replyTimeout = .seconds(120)
        options.acknowledgementTimeout = .seconds(120)
        options.startTimeout = .seconds(300)
        return options
    }
}
