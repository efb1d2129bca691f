import SibylCore
import Testing
@testable import Assistant

@Suite("Fitting history to the context", .timeLimit(.minutes(10)))
struct HistoryWindowTests {
    /// Counts one token per character plus the 4-token framing, so budgets are easy to reason about.
    struct CharacterCounter: TokenCounter {
        func count(_ text: String) -> Int { text.count }
        var isExact: Bool { true }
    }

    let counter = CharacterCounter()
    let system = ChatMessage.system("sys")  // 3 + 4 = 7 tokens

    private func history(_ turns: Int) -> [ChatMessage] {
        (0..<turns).flatMap { [ChatMessage.user("q\($0)"), .assistant("a\($0)")] } + [.user("now")]
    }

    @Test func everythingFitsWhenThereIsRoom() throws {
        let window = try HistoryWindow.fit(system: system, history: history(3), budget: 1000, counter: counter)
        #expect(window.messages.count == 8)
        #expect(window.droppedMessages == 0)
        #expect(window.messages.first == system)
    }

    @Test func oldestTurnsAreDroppedWholeNewestKept() throws {
        // Each old turn costs (2+4)*2 = 12; the last question 3+4 = 7; system 7.
        let window = try HistoryWindow.fit(system: system, history: history(3), budget: 7 + 7 + 24, counter: counter)
        #expect(window.messages.map(\.text) == ["sys", "q1", "a1", "q2", "a2", "now"])
        #expect(window.droppedMessages == 2)
        #expect(window.tokens == 38)
    }

    @Test func neverWipedWholesaleTheLastTurnAlwaysStays() throws {
        let window = try HistoryWindow.fit(system: system, history: history(5), budget: 14, counter: counter)
        #expect(window.messages.map(\.text) == ["sys", "now"])
        #expect(window.droppedMessages == 10)
    }

    @Test func aQuestionTooLongForTheContextIsAnError() {
        #expect(throws: AssistantError.messageTooLong(tokens: 7, budget: 3)) {
            try HistoryWindow.fit(system: system, history: [.user("now")], budget: 10, counter: counter)
        }
    }

    @Test func answersStayWithTheirQuestion() {
        let turns = HistoryWindow.split([.assistant("greeting"), .user("q"), .assistant("a"), .assistant("b"), .user("q2")])
        #expect(turns.map { $0.map(\.text) } == [["greeting"], ["q", "a", "b"], ["q2"]])
    }

    @Test func estimateIsDocumentedAndConservative() {
        let estimate = EstimatingTokenCounter()
        #expect(estimate.count("") == 0)
        #expect(estimate.count("abc") == 1)
        #expect(estimate.count("Hello world") == 4)  // 11 bytes → 4; a real BPE gives 2
        #expect(estimate.count("日本語") == 3)  // 9 bytes → 3, about one token per CJK character
        #expect(!estimate.isExact)
    }

    @Test func promptBudgetUsesKnownWindowsAndTheReserve() {
        #expect(EngineOptions(model: "gpt-4o-mini").promptBudget(for: "gpt-4o-mini") == 128_000 - 1024)
        #expect(EngineOptions(model: "x", maxTokens: 4000).promptBudget(for: "local-model") == 8192 - 4000)
        #expect(EngineOptions(model: "x", contextWindow: 2048, reserve: 512).promptBudget(for: "x") == 1536)
    }
}
