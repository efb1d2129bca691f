import Assistant
import Foundation
import Knowledge
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Synchronization
import Testing

/// Every database file is opened and migrated once per process, whatever asks first.
@Suite("Databases opened once", .timeLimit(.minutes(10)))
struct OpenOnceTests {
    @Test func parallelFirstUsesShareOneKnowledgeBase() async throws {
        try await withTestRuntime { runtime, _ in
            let opened = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<32 { group.addTask { ObjectIdentifier(try await runtime.knowledgeBase() as AnyObject) } }
                var identities = Set<ObjectIdentifier>()
                for try await identity in group { identities.insert(identity) }
                return identities
            }
            #expect(opened.count == 1, "one knowledge base for every caller")
            #expect(try await runtime.knowledgeBase().collections().isEmpty)
        }
    }

    @Test func aFailedOpeningIsTriedAgain() async throws {
        let attempts = Counter()
        let flight = SingleFlight<Int>()
        await #expect(throws: CancellationError.self) {
            try await flight.value { attempts.increment(); throw CancellationError() }
        }
        #expect(try await flight.value { attempts.increment(); return 7 } == 7)
        #expect(try await flight.value { attempts.increment(); return 8 } == 7, "the value is kept once made")
        #expect(attempts.value == 2)
    }
}

/// A count shared by tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
