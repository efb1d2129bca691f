import Foundation
import GRDB
import SibylCore
import Testing
@testable import Storage

@Suite("Concurrent appends", .timeLimit(.minutes(10)))
struct ConcurrencyTests {
    static let tasks = 8
    static let appendsPerTask = 25

    @Test("Appends from several tasks get unique, contiguous positions", arguments: [true, false])
    func concurrentAppends(onDisk: Bool) async throws {
        let directory = try TemporaryDirectory()
        let store = onDisk ? try directory.openStore() : try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for index in 0..<Self.appendsPerTask {
                        try store.append(Message(conversationID: conversation.id, role: .user, text: "\(task)-\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }

        let messages = try store.messages(in: conversation.id)
        let total = Self.tasks * Self.appendsPerTask
        #expect(messages.count == total)
        #expect(Set(messages.map(\.id)).count == total)
        // Each task appended in order, so its messages must appear in that order.
        for task in 0..<Self.tasks {
            let own = messages.map(\.text).filter { $0.hasPrefix("\(task)-") }
            #expect(own == (0..<Self.appendsPerTask).map { "\(task)-\($0)" })
        }
        if onDisk {
            try store.close()
            let probe = try DatabaseQueue(path: directory.databasePath)
            let positions = try await probe.read { db in
                try Int.fetchAll(db, sql: "SELECT position FROM message ORDER BY position")
            }
            #expect(positions == Array(1...total))
            try probe.close()
        }
    }
}
