public import Foundation
import Synchronization

/// Something that changed in one person's data, as the pages they have open learn of it (one
/// server-sent event stream per browser, `GET /api/v1/events`): a question asked on the glasses or
/// in another tab shows in the chat at once, without the page asking again and again.
public enum LiveEvent: Sendable, Hashable {
    /// A conversation was made, renamed, given another persona or mode, or deleted.
    case conversation(id: UUID, change: Change)
    /// A message was added to a conversation, or changed (an answer as it is written, its end).
    case message(conversationID: UUID, id: UUID, change: Change)
    /// Documents were added to or removed from a collection.
    case documents(collection: String)
    /// Local models were installed or removed.
    case models
    /// A pair of glasses was linked, changed (its state, what it heard or answered, its captions,
    /// what the virtual Monocle's screen shows), or went.
    case glasses(id: UUID)
    /// A missing local engine is being installed on first use (see `LocalEngineHost.installs`).
    case install(EngineInstallProgress)
    /// The memory changed: a fact proposed, written, accepted or forgotten.
    case memory
    /// The operations log has new entries.
    case log
    /// Nothing changed: sent now and then so a stream whose reader has gone is noticed.
    case heartbeat

    public enum Change: String, Sendable, Hashable, Codable {
        case created, changed, deleted
    }
}

/// The live events of one runtime (one person's data): whoever subscribes gets every event
/// published from then on, in order, until it stops listening.
public final class LiveEvents: Sendable {
    private struct Subscriber: Sendable {
        var deliver: @Sendable (LiveEvent) -> Void
        var finish: @Sendable () -> Void
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])

    public init() {}

    /// Tells every subscriber.
    public func publish(_ event: LiveEvent) {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.deliver(event) }
    }

    /// The events from now on, with a heartbeat every `heartbeat`; ends when the caller stops iterating.
    public func subscribe(heartbeat: Duration = .seconds(15)) -> AsyncStream<LiveEvent> {
        subscribe(also: [], heartbeat: heartbeat)
    }

    /// The events from now on of this and of `others` (a page follows its person's events and the
    /// machine's engine installs in one stream), with a heartbeat every `heartbeat`; ends when the
    /// caller stops iterating, or when this one finishes.
    public func subscribe(also others: [LiveEvents], heartbeat: Duration = .seconds(15)) -> AsyncStream<LiveEvent> {
        let id = UUID()
        // A slow reader loses the oldest events rather than holding memory without bound; a page
        // that missed some reloads what it shows on the next.
        let (stream, continuation) = AsyncStream<LiveEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let beat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                continuation.yield(.heartbeat)
            }
        }
        // The others only pass their events on: the stream ends when this one finishes.
        for other in others {
            other.subscribers.withLock { $0[id] = Subscriber(deliver: { continuation.yield($0) }, finish: {}) }
        }
        continuation.onTermination = { [weak self] _ in
            beat.cancel()
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
            for other in others { other.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        }
        subscribers.withLock { $0[id] = Subscriber(deliver: { continuation.yield($0) }, finish: { continuation.finish() }) }
        return stream
    }

    /// Ends every subscription (the server is stopping); those who subscribe later still may.
    public func finishAll() {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.finish() }
    }

    /// How many are listening now.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }
}
