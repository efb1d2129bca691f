import Assistant
import Foundation
import Hummingbird
import SibylApp

/// `GET /api/v1/events`: one server-sent event stream per open page, telling it what changed in
/// the caller's data as it happens (see `LiveEvent`), so pages follow without asking again.
struct EventRoutes: RouteCollectionAdding {
    let state: ServerState

    /// A conversation or message that changed; what the others carry.
    struct Change: Codable, Sendable {
        var id: String?
        var conversationId: String?
        var change: String?
        var collection: String?
        /// A first use's engine install: its component, title, state (running, finished, failed),
        /// step, progress (0…1, when known) and detail, and why it failed.
        var component: String?
        var title: String?
        var state: String?
        var step: String?
        var fraction: Double?
        var detail: String?
        var problem: String?
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("events") { _, context in
            let runtime = try await state.runtime(for: context)
            // Subscribed before the response starts, so nothing that happens after the page asked is missed.
            let events = runtime.events.subscribe(also: [runtime.engineInstalls])
            return EventStream.response { writer in
                guard writer.send("ready", Change()) else { return }
                for await event in events {
                    let (name, payload) = Self.wire(event)
                    // The reader has gone: the loop ends, and with it the subscription.
                    if !writer.send(name, payload) { break }
                }
            }
        }
    }

    static func wire(_ event: LiveEvent) -> (String, Change) {
        switch event {
        case .conversation(let id, let change): ("conversation", Change(id: id.wireString, change: change.rawValue))
        case .message(let conversationID, let id, let change): ("message", Change(id: id.wireString, conversationId: conversationID.wireString, change: change.rawValue))
        case .documents(let collection): ("documents", Change(collection: collection))
        case .models: ("models", Change())
        case .glasses(let id): ("glasses", Change(id: id.wireString))
        case .install(let progress):
            (
                "install",
                Change(
                    component: progress.component, title: progress.title, state: progress.state.rawValue, step: progress.step,
                    fraction: progress.fraction, detail: progress.detail, problem: progress.problem
                )
            )
        case .memory: ("memory", Change())
        case .log: ("log", Change())
        case .heartbeat: ("ping", Change())
        }
    }
}
