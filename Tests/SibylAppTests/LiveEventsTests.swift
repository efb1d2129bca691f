import Foundation
@testable import SibylApp
import SibylCore
import Storage
import Testing

/// What a page following `GET /api/v1/events` learns: every change written through the runtime's
/// store, in order, and nothing once it stops listening.
@Suite("Live events", .timeLimit(.minutes(10)))
struct LiveEventsTests {
    @Test func everyWriteIsToldInOrderAndReadsAreNot() async throws {
        let events = LiveEvents()
        let store = ObservedConversationStore(base: QueuedConversationStore(try ConversationStore.inMemory()), events: events)
        let stream = events.subscribe(heartbeat: .seconds(3_600))
        var iterator = stream.makeAsyncIterator()

        let conversation = Conversation(persona: "assistant", source: .web)
        try await store.create(conversation)
        let question = Message(conversationID: conversation.id, role: .user, text: "Hello?")
        try await store.append(question)
        var answer = Message(conversationID: conversation.id, role: .assistant, text: "", status: .pending)
        try await store.append(answer)
        // Drafts and reads are not told: only what a page must show anew.
        try await store.saveDrafts([answer.id: "Hel"])
        _ = try await store.messages(in: conversation.id)
        answer.text = "Hello!"
        answer.status = .complete
        try await store.update(answer)
        try await store.setTitle("Greetings", for: conversation.id)
        try await store.log(.info, "ask", "answered", detailsJSON: nil)
        #expect(try await store.delete(conversation: conversation.id))

        var seen: [LiveEvent] = []
        for _ in 0..<7 { seen.append(try #require(await iterator.next())) }
        #expect(seen == [
            .conversation(id: conversation.id, change: .created),
            .message(conversationID: conversation.id, id: question.id, change: .created),
            .message(conversationID: conversation.id, id: answer.id, change: .created),
            .message(conversationID: conversation.id, id: answer.id, change: .changed),
            .conversation(id: conversation.id, change: .changed),
            .log,
            .conversation(id: conversation.id, change: .deleted),
        ])
    }

    @Test func aListenerThatStopsIsForgotten() async throws {
        let events = LiveEvents()
        let got = Task {
            for await event in events.subscribe(heartbeat: .seconds(3_600)) where event == .models { return true }
            return false
        }
        // Wait for the subscription, then publish what ends the listener's loop.
        while events.subscriberCount == 0 { await Task.yield() }
        events.publish(.models)
        #expect(await got.value)
        while events.subscriberCount > 0 { await Task.yield() }
        #expect(events.subscriberCount == 0)
    }

    @Test func aStoppingServerEndsEveryStream() async throws {
        let events = LiveEvents()
        let streams = [events.subscribe(heartbeat: .seconds(3_600)), events.subscribe(heartbeat: .seconds(3_600))]
        events.finishAll()
        for stream in streams {
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
        }
        while events.subscriberCount > 0 { await Task.yield() }
    }

    @Test func aQuietStreamStillBeats() async throws {
        let events = LiveEvents()
        var iterator = events.subscribe(heartbeat: .milliseconds(10)).makeAsyncIterator()
        #expect(await iterator.next() == .heartbeat)
    }
}
