/// A gate a test opens when it is ready: whoever waits at it goes on once it is open (at once if it
/// already is). A scripted reply held at a gate (`Reply.held`) stays in the middle for as long as
/// the test needs, where a pause would guess how long that is.
public final class Gate: Sendable {
    /// Whether someone has come to the gate, and whether it is open.
    private let state = Observed((reached: false, open: false))

    public init() {}

    /// Opens the gate: every waiter goes on.
    public func open() {
        state.update { $0.open = true }
    }

    /// Waits at the gate until it is open. The ceiling (ten minutes) is a guard against a test
    /// that never opens it; waiting ends early if the task is cancelled.
    public func pass() async {
        state.update { $0.reached = true }
        _ = try? await state.wait(for: "the gate to open", within: .seconds(600)) { $0.open }
    }

    /// Waits until someone has come to the gate (the held reply has sent what comes before it).
    public func reached(within ceiling: Duration = .seconds(120)) async throws {
        try await state.wait(for: "someone to come to the gate", within: ceiling) { $0.reached }
    }
}
