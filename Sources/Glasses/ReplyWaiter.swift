import Foundation
import Synchronization

/// One reply a driver waits for at a time: given by what arrives (``offer(_:)``), or ended by a
/// timeout, a lost link (``fail(_:)``) or the waiting task's cancellation.
public final class ReplyWaiter<Value: Sendable>: Sendable {
    private struct Pending {
        var id: Int
        var continuation: CheckedContinuation<Value, any Error>
        var timer: Task<Void, Never>?
    }

    private let state = Mutex<(next: Int, pending: Pending?)>((0, nil))

    public init() {}

    /// Whether a wait is under way.
    public var isWaiting: Bool { state.withLock { $0.pending != nil } }

    /// Waits for a reply: `action`, when given, runs once the wait is set up (it sends what is
    /// answered, so the answer cannot come first); its error ends the wait. A wait under way is
    /// replaced (it fails).
    public func wait(
        for what: String, timeout: Duration, after action: (@Sendable () async throws -> Void)? = nil
    ) async throws -> Value {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.end(id, throwing: GlassesError.timeout(waitingFor: what, after: timeout))
                }
                let replaced = state.withLock { state -> Pending? in
                    defer { state.pending = Pending(id: id, continuation: continuation, timer: timer) }
                    return state.pending
                }
                if let replaced {
                    replaced.timer?.cancel()
                    replaced.continuation.resume(throwing: GlassesError.unexpectedReply(waitingFor: what, got: "another wait"))
                }
                if Task.isCancelled { end(id, throwing: CancellationError()) }
                guard let action else { return }
                Task { [weak self] in
                    do { try await action() } catch { self?.end(id, throwing: error) }
                }
            }
        } onCancel: {
            end(id, throwing: CancellationError())
        }
    }

    /// Gives the wait under way its reply; false when none waits.
    @discardableResult
    public func offer(_ value: Value) -> Bool {
        guard let pending = take(nil) else { return false }
        pending.timer?.cancel()
        pending.continuation.resume(returning: value)
        return true
    }

    /// Ends the wait under way, if any, with `error`.
    public func fail(_ error: any Error) {
        guard let pending = take(nil) else { return }
        pending.timer?.cancel()
        pending.continuation.resume(throwing: error)
    }

    private func end(_ id: Int, throwing error: any Error) {
        guard let pending = take(id) else { return }
        pending.timer?.cancel()
        pending.continuation.resume(throwing: error)
    }

    /// Takes the pending wait (only the one with `id`, when given).
    private func take(_ id: Int?) -> Pending? {
        state.withLock { state in
            guard let pending = state.pending, id == nil || pending.id == id else { return nil }
            state.pending = nil
            return pending
        }
    }
}
