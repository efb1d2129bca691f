import FrameGlasses
import Glasses
import Monocle
import Synchronization

/// Records what a connection reports, Monocle's or Frame's, as it happens.
final class ConnectionObserver: Sendable {
    let events = Mutex<[GlassesConnection.Event]>([])
    private let running = Mutex<(count: Int, next: Int, waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)])>((0, 0, [:]))
    let onState: @Sendable (GlassesState) async -> Void

    init(onState: @escaping @Sendable (GlassesState) async -> Void = { _ in }) {
        self.onState = onState
    }

    func follow(_ connection: GlassesConnection) -> Task<Void, Never> {
        Task {
            for await event in connection.events {
                events.withLock { $0.append(event) }
                guard case .state(let state) = event else { continue }
                if state.isRunning { countRun() }
                await onState(state)
            }
            ended()
        }
    }

    var states: [GlassesPhase] { events.withLock { $0.compactMap { if case .state(let state) = $0 { state.phase } else { nil } } } }
    var notices: [String] { events.withLock { $0.compactMap { if case .notice(let text) = $0 { text } else { nil } } } }
    var failures: [String] { events.withLock { $0.compactMap { if case .updateFailed(let reason) = $0 { reason } else { nil } } } }
    var requests: [GlassesRequest] { events.withLock { $0.compactMap { if case .request(let request) = $0 { request } else { nil } } } }
    /// What the glasses reported each time their app came up.
    var runs: [GlassesDeviceInfo] { states.compactMap { if case .running(let info) = $0 { info } else { nil } } }

    /// Waits for the `count`-th `running` state; the limit is a ceiling against hangs only.
    func running(_ count: Int = 1, timeout: Duration = .seconds(300)) async throws -> GlassesDeviceInfo {
        let id = running.withLock { state in
            state.next += 1
            return state.next
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.wake(id)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            let ready = self.running.withLock { state -> Bool in
                guard state.count < count else { return true }
                state.waiters[id] = (count, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        let runs = runs
        guard runs.count >= count else {
            throw GlassesError.timeout(waitingFor: "running #\(count) after \(states), notices \(notices)", after: timeout)
        }
        return runs[count - 1]
    }

    /// Waits until `check` gives a value; the limit is a ceiling against hangs only.
    func until<T>(_ what: String, timeout: Duration = .seconds(300), _ check: () -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = check() { return value }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw GlassesError.timeout(waitingFor: "\(what) after \(states), notices \(notices)", after: timeout)
    }

    private func countRun() {
        let woken = running.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let ready = state.waiters.filter { $0.value.count <= state.count }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// A wait ran out: it looks again (and finds too few runs).
    private func wake(_ id: Int) {
        running.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    /// The events ended: every waiter looks again.
    private func ended() {
        let woken = running.withLock { state in
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }
}

extension GlassesConnection {
    /// Runs the connection while `body` looks on through `observer`, and stops it after.
    nonisolated func serve<T>(observer: ConnectionObserver = ConnectionObserver(), _ body: (ConnectionObserver) async throws -> T) async throws -> T {
        let following = observer.follow(self)
        let serving = Task { await self.run() }
        defer {
            serving.cancel()
            following.cancel()
        }
        do {
            let result = try await body(observer)
            await stop()
            return result
        } catch {
            await stop()
            throw error
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
        options.replyTimeout = .seconds(20)
        options.acknowledgementTimeout = .seconds(20)
        options.startTimeout = .seconds(60)
        return options
    }
}
