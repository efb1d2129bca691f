import Foundation
import SibylCore
import Synchronization
import Testing
@testable import Assistant

/// A chat model that gives one scripted reply to every request, and keeps the requests it got.
final class ScriptedChatModel: ChatModel {
    private let reply: Result<String, any Error>
    private let received = Mutex<[ChatRequest]>([])

    init(replying text: String) { reply = .success(text) }
    init(failingWith error: any Error) { reply = .failure(error) }

    var requests: [ChatRequest] { received.withLock { $0 } }

    func complete(_ request: ChatRequest) async throws -> ChatCompletion {
        received.withLock { $0.append(request) }
        return ChatCompletion(text: try reply.get(), model: request.model, finishReason: .stop, usage: nil, timings: Timings(timeToFirstToken: nil, total: .zero))
    }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatStreamEvent, any Error> {
        received.withLock { $0.append(request) }
        return AsyncThrowingStream { $0.finish(throwing: NotScripted()) }
    }

    struct NotScripted: Error {}
}

/// The JSON a model answers with: one entry per (fact, quote).
private func reply(_ facts: [(fact: String, quote: String)]) -> String {
    let entries = facts.map { ["fact": $0.fact, "quote": $0.quote] }
    let data = try! JSONSerialization.data(withJSONObject: ["facts": entries], options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

@Suite("Memory proposals", .timeLimit(.minutes(10)))
struct MemoryProposerTests {
    let conversationID = UUID()

    func user(_ text: String) -> Message { Message(conversationID: conversationID, role: .user, text: text) }
    func assistant(_ text: String) -> Message { Message(conversationID: conversationID, role: .assistant, text: text) }

    /// A conversation where the user says things about themselves, with an answer between.
    var conversation: [Message] {
        [
            user("I'm vegetarian and I live in Lyon with my two cats. What could I cook tonight?"),
            assistant("I love Lyon in spring! Try a lentil salad; I'm sure my recipe will please you."),
            user("Something quick, I get home late from the hospital where I work as a nurse."),
        ]
    }

    func propose(_ reply: String, from messages: [Message], known: [MemoryFact] = []) async throws -> (proposals: [MemoryProposer.Proposal], model: ScriptedChatModel) {
        let model = ScriptedChatModel(replying: reply)
        let proposals = try await MemoryProposer.propose(from: messages, known: known, model: model, modelName: "memory-model")
        return (proposals, model)
    }

    @Test func factsBackedByTheUsersOwnWordsAreProposedFromTheMessageThatSaysThem() async throws {
        let messages = conversation
        let (proposals, model) = try await propose(
            reply([
                ("The user is vegetarian.", "I'm vegetarian"),
                // Case, punctuation and spacing aside, the words are the user's.
                ("The user works   as a nurse.", "where i WORK as a nurse"),
            ]),
            from: messages
        )
        #expect(proposals == [
            MemoryProposer.Proposal(text: "The user is vegetarian.", messageID: messages[0].id),
            MemoryProposer.Proposal(text: "The user works as a nurse.", messageID: messages[2].id),
        ])
        #expect(model.requests.count == 1)
    }

    @Test func theRequestHoldsOnlyTheUsersMessagesAndWhatIsKnown() async throws {
        let known = [MemoryFact(text: "The user has two cats.", status: .accepted)]
        let (_, model) = try await propose(#"{"facts": []}"#, from: conversation, known: known)
        let request = try #require(model.requests.first)
        #expect(request.model == "memory-model")
        #expect(request.sampling.temperature == 0)
        #expect(request.messages.map(\.role) == [.system, .user])
        let prompt = request.messages[1].text
        #expect(prompt.contains("I'm vegetarian and I live in Lyon"))
        #expect(prompt.contains("where I work as a nurse"))
        #expect(!prompt.contains("lentil salad"), "answers are never read for facts")
        #expect(prompt.contains("- The user has two cats."))
    }

    @Test func aReplyInsideWordsOrCodeFencesIsStillRead() async throws {
        let messages = conversation
        let fenced = "Here you are:\n```json\n" + reply([("The user lives in Lyon.", "I live in Lyon")]) + "\n```\nHope that helps."
        let (proposals, _) = try await propose(fenced, from: messages)
        #expect(proposals == [MemoryProposer.Proposal(text: "The user lives in Lyon.", messageID: messages[0].id)])
    }

    /// Facts the checks must turn away, each on its own, from `conversation`.
    static let rejected: [(why: String, fact: String, quote: String)] = [
        ("not a sentence about the user", "Is vegetarian.", "I'm vegetarian"),
        ("about someone else", "The cats live in Lyon.", "I live in Lyon with my two cats"),
        ("a quote the user never wrote", "The user is a pilot.", "I fly planes for a living"),
        ("a quote only the answer holds", "The user loves Lyon in spring.", "I love Lyon in spring"),
        ("a quote not in the first person", "The user has two cats.", "two cats"),
        ("an empty quote", "The user is vegetarian.", ""),
        ("too long a fact", "The user is vegetarian" + String(repeating: " and very much so", count: 12) + ".", "I'm vegetarian"),
    ]

    @Test(arguments: rejected.indices)
    func aFactWithoutTheUsersOwnWordsAboutThemselvesIsTurnedAway(_ index: Int) async throws {
        let (why, fact, quote) = Self.rejected[index]
        let (proposals, model) = try await propose(reply([(fact, quote)]), from: conversation)
        #expect(proposals.isEmpty, "\(why)")
        #expect(model.requests.count == 1, "the model was asked; its answer was checked")
    }

    @Test func aKnownFactOrOneRepeatedIsNotProposedAgain() async throws {
        let messages = conversation
        let known = [MemoryFact(text: "The user is vegetarian.", status: .accepted)]
        let (proposals, _) = try await propose(
            reply([
                ("The user is Vegetarian!", "I'm vegetarian"),
                ("The user lives in Lyon.", "I live in Lyon"),
                ("the user lives in lyon", "I live in Lyon with my two cats"),
            ]),
            from: messages, known: known
        )
        #expect(proposals == [MemoryProposer.Proposal(text: "The user lives in Lyon.", messageID: messages[0].id)])
    }

    @Test(arguments: [
        "Nothing worth remembering.",
        #"{"facts": [{"fact": "The user is vegetarian.", "quote": "I'm vegetarian""#,
        #"{facts: [{fact: "The user is vegetarian.", quote: "I'm vegetarian"}]}"#,
        #"{"facts": "The user is vegetarian."}"#,
        #"{"fact": "The user is vegetarian.", "quote": "I'm vegetarian"}"#,
        #"{"facts": [["The user is vegetarian.", "I'm vegetarian"], {"fact": 3, "quote": "I'm vegetarian"}, {"fact": "The user is vegetarian."}]}"#,
        "} The user is vegetarian. {",
    ])
    func aReplyThatIsNotTheAskedJSONProposesNothing(_ reply: String) async throws {
        // Not an error: the conversation is simply left without proposals.
        let (proposals, model) = try await propose(reply, from: conversation)
        #expect(proposals.isEmpty)
        #expect(model.requests.count == 1)
    }

    @Test func atMostFiveFactsComeFromOneConversation() async throws {
        let things = ["a bike", "a boat", "a piano", "a tent", "a kayak", "a drone", "a telescope"]
        let messages = things.map { user("I own \($0) and wonder how to look after it.") }
        let (proposals, _) = try await propose(reply(things.map { (fact: "The user owns \($0).", quote: "I own \($0)") }), from: messages)
        #expect(proposals.count == MemoryProposer.mostProposals)
        #expect(proposals.map(\.text) == things.prefix(5).map { "The user owns \($0)." })
        #expect(proposals.map(\.messageID) == messages.prefix(5).map(\.id))
    }

    @Test func aConversationWhereTheUserNeverSpeaksOfThemselvesCostsNoModelCall() async throws {
        let messages = [
            user("What is the capital of Australia?"),
            assistant("I believe it is Canberra; my sources agree."),
            user("And how far is it from Sydney?"),
            user("  "),
        ]
        #expect(MemoryProposer.request(modelName: "m", messages: messages, known: []) == nil)
        let (proposals, model) = try await propose(reply([("The user likes Canberra.", "I believe it is Canberra")]), from: messages)
        #expect(proposals.isEmpty)
        #expect(model.requests.isEmpty)
        // Nothing at all, likewise.
        let (none, untouched) = try await propose(#"{"facts": []}"#, from: [])
        #expect(none.isEmpty && untouched.requests.isEmpty)
    }

    @Test func theQuoteMatchesTheMessageAsTheModelReadItOnOneLine() async throws {
        let messages = [
            user("What should I pack for Japan?"),
            user("We're flying to Tokyo\non 14 March\tfor two weeks."),
            user("We're flying to Tokyo again next year, by the way."),
        ]
        let (proposals, _) = try await propose(reply([("The user flies to Tokyo on 14 March.", "we're flying to Tokyo on 14 March")]), from: messages)
        #expect(proposals == [MemoryProposer.Proposal(text: "The user flies to Tokyo on 14 March.", messageID: messages[1].id)])

        // A quote both later messages hold comes from the first of them.
        let (first, _) = try await propose(reply([("The user is flying to Tokyo.", "We're flying to Tokyo")]), from: messages)
        #expect(first.map(\.messageID) == [messages[1].id])
    }

    @Test func onlyTheMessagesTheModelReadCanBeQuoted() async throws {
        // The model reads the latest 24 messages of the user's: an older one cannot be the source.
        let messages = (0..<30).map { user("I have \($0 + 100) stamps in album \($0 + 100).") }
        let (old, _) = try await propose(reply([("The user collects stamps.", "I have 100 stamps")]), from: messages)
        #expect(old.isEmpty)
        let (recent, _) = try await propose(reply([("The user collects stamps.", "I have 129 stamps")]), from: messages)
        #expect(recent.map(\.messageID) == [messages[29].id])
    }

    @Test func whatTheModelThrowsReachesTheCaller() async throws {
        struct Down: Error {}
        let model = ScriptedChatModel(failingWith: Down())
        await #expect(throws: Down.self) {
            try await MemoryProposer.propose(from: conversation, known: [], model: model, modelName: "m")
        }
        #expect(model.requests.count == 1)
    }

    @Test func firstPersonWordsAreRecognisedInTheLanguagesSibylSpeaks() {
        for text in ["I'm a nurse", "I’ve two cats", "my car", "We're moving", "Ich wohne in Berlin", "J'habite à Lyon", "Saya tinggal di Jakarta", "저는 학생이에요", "Yo vivo en Madrid"] {
            #expect(MemoryProposer.speaksOfThemselves(text), "\(text)")
        }
        for text in ["What is the capital of Peru?", "She lives in Lyon.", "Imagine a lighthouse", "Write a haiku about the sea.", ""] {
            #expect(!MemoryProposer.speaksOfThemselves(text), "\(text)")
        }
    }

    @Test func aQuoteMustBeWholeWordsOfTheMessage() async throws {
        // "my cat" is not what someone wrote who wrote "my catering business".
        let messages = [user("How do I write an invoice for my catering business?")]
        let (proposals, _) = try await propose(reply([("The user has a cat.", "my cat")]), from: messages)
        #expect(proposals.isEmpty)
    }

    @Test func whatTheUserAskedThenIsNotAFactAboutThem() async throws {
        let messages = [user("I keep reading about Marie Curie; what did she discover? I'm a chemistry teacher.")]
        let (proposals, _) = try await propose(reply([
            ("The user is asking about Marie Curie's discoveries.", "I keep reading about Marie Curie"),
            ("The user wants to know what Marie Curie discovered.", "I keep reading about Marie Curie"),
            ("The user is a chemistry teacher.", "I'm a chemistry teacher"),
        ]), from: messages)
        #expect(proposals.map(\.text) == ["The user is a chemistry teacher."])
    }
}

@Suite("The memory evaluation set", .timeLimit(.minutes(10)))
struct MemoryEvaluationSetTests {
    static let shippedFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/eval/memory.json")

    @Test func theShippedSetLoadsAndHoldsTogether() throws {
        let set = try MemoryEvaluationSet(file: Self.shippedFile)
        #expect(set.conversations.count >= 10)
        #expect(set.questions.count >= 10)
        #expect(!set.memory.isEmpty)
        #expect(Set(set.conversations.map(\.id)).count == set.conversations.count)
        #expect(Set(set.questions.map(\.id)).count == set.questions.count)
        // Both kinds are there: conversations worth remembering and trivia; questions needing a fact and not.
        #expect(set.conversations.contains { !$0.facts.isEmpty } && set.conversations.contains { $0.facts.isEmpty })
        #expect(set.questions.contains { $0.needs != nil } && set.questions.contains { $0.needs == nil })
        for fact in set.memory {
            #expect(fact.hasPrefix("The user"), "\(fact) is written the way proposals are")
        }
        for conversation in set.conversations {
            let messages = MemoryEvaluationSet.messages(of: conversation)
            #expect(messages.map(\.text) == conversation.messages)
            #expect(messages.allSatisfy { $0.role == .user && $0.conversationID == messages[0].conversationID })
        }
    }

    @Test func everyConversationWithALabelledFactReachesTheModel() throws {
        // Were one skipped before the model call, no model could find its facts.
        let set = try MemoryEvaluationSet(file: Self.shippedFile)
        for conversation in set.conversations where !conversation.facts.isEmpty {
            #expect(MemoryProposer.request(modelName: "m", messages: MemoryEvaluationSet.messages(of: conversation), known: []) != nil, "\(conversation.id)")
        }
    }

    @Test func theSetsQuestionsAboutTheAskerAreThoseNeedingAFact() throws {
        // What lets the lower personal threshold apply to exactly the questions it is for.
        let set = try MemoryEvaluationSet(file: Self.shippedFile)
        for question in set.questions {
            #expect(MemoryRecall.asksAboutThemselves(question.question) == (question.needs != nil), "\(question.id): \(question.question)")
        }
    }

    @Test func aSetWithAMistakeIsRefusedSayingWhat() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-memory-set-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("memory.json")

        #expect(throws: MemoryEvaluationError.self) { try MemoryEvaluationSet(file: file) }
        try Data(#"{"conversations": [], "memory": ["The user is vegetarian."], "questions": [{"id": "q", "question": "For me?", "needs": 1, "answer": [["x"]]}]}"#.utf8)
            .write(to: file)
        do {
            _ = try MemoryEvaluationSet(file: file)
            Issue.record("a question needing a fact the memory lacks was accepted")
        } catch let error as MemoryEvaluationError {
            #expect(error.errorDescription == "Question q needs fact 1, but the memory has 1.")
        }
        try Data(#"{"conversations": [{"id": "c", "messages": ["hi"], "facts": ["vegetarian"]}], "memory": [], "questions": []}"#.utf8).write(to: file)
        #expect(throws: MemoryEvaluationError.self) { try MemoryEvaluationSet(file: file) }
        try Data(#"{"conversations": [{"id": "c", "messages": ["I'm vegetarian"], "facts": [[["vegetarian", "vegan"]]]}], "memory": [], "questions": []}"#.utf8).write(to: file)
        #expect(try MemoryEvaluationSet(file: file).conversations[0].facts[0].groups == [["vegetarian", "vegan"]])
    }

    @Test func wordsNeedOneOfEachGroupAnywhereInTheText() throws {
        let words = try JSONDecoder().decode(MemoryEvaluationSet.Words.self, from: Data(#"[["peanut"], ["allerg", "intoleran"]]"#.utf8))
        #expect(words.found(in: "The user is ALLERGIC to peanuts."))
        #expect(words.found(in: "Peanut intolerance"))
        #expect(!words.found(in: "The user is allergic to shellfish."))
        #expect(!words.found(in: "The user likes peanuts."))
        let nothing = try JSONDecoder().decode(MemoryEvaluationSet.Words.self, from: Data("[]".utf8))
        #expect(nothing.found(in: "anything"))
    }

    @Test func proposalsAreGradedAgainstTheLabelledFacts() throws {
        let facts = try JSONDecoder().decode([MemoryEvaluationSet.Words].self, from: Data(#"[[["vegetarian"]], [["lyon"]], [["nurse"]]]"#.utf8))
        let graded = MemoryEvaluation.grade(["The user is vegetarian.", "The user likes films.", "The user lives in Lyon."], against: facts, conversation: "diet-home")
        #expect(graded.conversation == "diet-home")
        #expect(graded.proposals.map(\.text) == ["The user is vegetarian.", "The user likes films.", "The user lives in Lyon."])
        #expect(graded.proposals.map(\.right) == [true, false, true])
        #expect(graded.missed == 1)

        let trivia = MemoryEvaluation.grade(["The user asked about Rome."], against: [], conversation: "history")
        #expect(trivia.proposals.map(\.right) == [false] && trivia.missed == 0)

        let evaluation = MemoryEvaluation(model: "m", embeddingModel: "e", proposed: [graded, trivia], asked: [], elapsed: .zero)
        #expect(evaluation.proposals == 4)
        #expect(evaluation.rightProposals == 2)
        #expect(evaluation.precision == 0.5)
        #expect(evaluation.labelledFacts == 3)
        #expect(abs(evaluation.recall - 2.0 / 3.0) < 1e-12)
        #expect(MemoryEvaluation(model: "m", embeddingModel: "e", proposed: [], asked: [], elapsed: .zero).precision == 1)
    }

    @Test func aLabelledFactFoundTwiceCountsOnceTowardsRecall() throws {
        let facts = try JSONDecoder().decode([MemoryEvaluationSet.Words].self, from: Data(#"[[["vegetarian"]], [["lyon"]]]"#.utf8))
        let graded = MemoryEvaluation.grade(["The user is vegetarian.", "The user eats vegetarian food."], against: facts, conversation: "c")
        #expect(graded.missed == 1)
        let evaluation = MemoryEvaluation(model: "m", embeddingModel: "e", proposed: [graded], asked: [], elapsed: .zero)
        // Two labelled facts, one of them found: half.
        #expect(evaluation.labelledFacts == 2)
        #expect(evaluation.recall == 0.5)
    }

    @Test func askedQuestionsCountAsRecalledWhenTheyGotWhatTheyNeeded() {
        let fact = MemoryFact(text: "The user is vegetarian.", status: .accepted)
        let recalled = [RememberedFact(fact: fact, score: 0.6)]
        let right = MemoryEvaluation.Asked(question: "Dinner for me?", needs: fact.text, recalled: recalled, neededScore: 0.6, answer: "Lentils", answeredRight: true)
        let missed = MemoryEvaluation.Asked(question: "Dinner for me?", needs: fact.text, recalled: [], neededScore: 0.1, answer: "Steak", answeredRight: false)
        let quiet = MemoryEvaluation.Asked(question: "Capital of Peru?", needs: nil, recalled: [], neededScore: nil, answer: "Lima", answeredRight: true)
        let noisy = MemoryEvaluation.Asked(question: "Capital of Peru?", needs: nil, recalled: recalled, neededScore: nil, answer: "Lima", answeredRight: true)
        #expect(right.recalledNeeded && !missed.recalledNeeded && quiet.recalledNeeded && !noisy.recalledNeeded)
        let evaluation = MemoryEvaluation(model: "m", embeddingModel: "e", proposed: [], asked: [right, missed, quiet, noisy], elapsed: .zero)
        #expect(evaluation.recalledNeeded == 0.5)
        #expect(evaluation.recalledNothing == 0.5)
        #expect(evaluation.answeredRightWithFact == 0.5)
    }
}
