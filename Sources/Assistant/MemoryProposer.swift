public import Foundation
public import SibylCore

/// Proposes facts about the user from one conversation, in one short model call: lasting facts
/// worth keeping (their name, family, home, work, diet, plans), never the topic they asked about,
/// general knowledge or what only holds today. Only the user's own messages are read, so nothing
/// comes from documents or from answers.
public enum MemoryProposer {
    /// A fact the model found, and the user's message it came from.
    public struct Proposal: Sendable, Hashable {
        public var text: String
        public var messageID: UUID
    }

    /// The most user messages one call reads (the latest), and the most characters of each.
    static let messagesRead = 24
    static let charactersPerMessage = 600
    /// The most facts one conversation proposes.
    static let mostProposals = 5

    static let instructions = """
        You keep a small memory about the user of a personal assistant. Read the user's messages and \
        list facts about the user that will still be true and useful in future conversations: their \
        name, family and pets, where they live, their work or studies, languages, diet and allergies, \
        health conditions, lasting preferences, things they own, and plans with a date.
        Only what the user says about themselves counts. Do not list: what they ask about or want to \
        know, general knowledge, facts about other people or things, passing moods, what they are \
        doing right now, or anything already known (listed below).
        For each fact, write one short sentence about the user in English ("The user is vegetarian.") \
        and copy the user's exact words it comes from. Reply with JSON only: \
        {"facts": [{"fact": "The user ...", "quote": "the user's exact words"}]}. Most conversations \
        hold no such fact: then reply {"facts": []}.
        """

    /// The request for one conversation's user messages, with the facts already known; nil when
    /// no message of the user's says anything about themselves (then no model is asked).
    public static func request(modelName: String, messages: [Message], known: [MemoryFact]) -> ChatRequest? {
        let asked = userMessages(messages)
        guard asked.contains(where: { speaksOfThemselves($0.text) }) else { return nil }
        var prompt = "The user's messages:\n"
        for message in asked {
            prompt += "- \(oneLine(message.text))\n"
        }
        let knownFacts = known.prefix(40).map { "- \($0.text)" }
        prompt += "\nAlready known:\n" + (knownFacts.isEmpty ? "(nothing)" : knownFacts.joined(separator: "\n"))
        prompt += "\n\nJSON:"
        return ChatRequest(model: modelName, messages: [.system(instructions), .user(prompt)], sampling: Sampling(temperature: 0, maxTokens: 400))
    }

    /// The messages the model reads: the user's, with words, the latest `messagesRead`.
    static func userMessages(_ messages: [Message]) -> [Message] {
        Array(messages.filter { $0.role == .user && $0.text.contains(where: \.isLetter) }.suffix(messagesRead))
    }

    /// A message as the model reads it: one line, cut to `charactersPerMessage`.
    static func oneLine(_ text: String) -> String {
        String(text.prefix(charactersPerMessage)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Asks the model; throws what the model throws.
    public static func propose(from messages: [Message], known: [MemoryFact], model: any ChatModel, modelName: String) async throws -> [Proposal] {
        guard let request = request(modelName: modelName, messages: messages, known: known) else { return [] }
        let completion = try await model.complete(request)
        return proposals(in: completion.text, messages: userMessages(messages), known: known)
    }

    /// The facts in a model's reply: its JSON object (found inside code fences or words around it),
    /// each checked against what the user wrote: a sentence about the user, whose quote is the
    /// user's own words about themselves in one of their messages (which it then comes from), and
    /// new (not a known fact or another of this reply, ignoring case and punctuation). A fact the
    /// model made up, or took from a question about something else, has no such quote.
    static func proposals(in reply: String, messages: [Message], known: [MemoryFact]) -> [Proposal] {
        guard let start = reply.firstIndex(of: "{"), let end = reply.lastIndex(of: "}"), start < end,
              let object = try? JSONSerialization.jsonObject(with: Data(reply[start...end].utf8)) as? [String: Any],
              let facts = object["facts"] as? [Any] else { return [] }
        var seen = Set(known.map { key($0.text) })
        var found: [Proposal] = []
        for item in facts {
            guard let entry = item as? [String: Any], let raw = entry["fact"] as? String, let quote = entry["quote"] as? String else { continue }
            let text = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            // Whole words of one message: "my cat" is not a quote of "my catering business".
            let quoted = " " + key(quote) + " "
            guard text.count >= 12, text.count <= 200, text.lowercased().hasPrefix("the user "),
                  !aboutTheQuestion(text), speaksOfThemselves(quote), !key(quote).isEmpty, let source = messages.first(where: { (" " + key(oneLine($0.text)) + " ").contains(quoted) }),
                  seen.insert(key(text)).inserted else { continue }
            found.append(Proposal(text: text, messageID: source.id))
            if found.count == mostProposals { break }
        }
        return found
    }

    /// Whether a "fact" only says what the user asked or wanted to know then ("The user is asking
    /// about Marie Curie."): that is the conversation, not something to keep about them.
    static func aboutTheQuestion(_ fact: String) -> Bool {
        let words = Set(key(fact).split(separator: " ").map(String.init))
        return !words.isDisjoint(with: ["asking", "asked", "asks", "wondering", "question", "questions", "curious", "inquiring"])
            || key(fact).contains("wants to know") || key(fact).contains("would like to know")
    }

    /// Words people use of themselves, in the languages Sibyl speaks and a few near them.
    static let firstPerson: Set<String> = [
        "i", "i'm", "im", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "we", "we're", "our", "ours", "us",
        "saya", "aku", "kami", "kita", "ich", "mein", "meine", "wir", "unser", "je", "j", "moi", "mon", "ma", "mes", "nous", "notre",
        "yo", "mi", "mis", "nosotros", "nuestro", "io", "mio", "mia", "noi",
        "저", "제", "나", "내", "우리", "저는", "제가", "나는", "내가", "우리는",
    ]

    /// Whether words speak of the one writing them.
    static func speaksOfThemselves(_ text: String) -> Bool {
        let words = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
            .split { !($0.isLetter || $0 == "'") }
            .map(String.init)
        return words.contains { firstPerson.contains($0) || firstPerson.contains(String($0.split(separator: "'").first ?? "")) }
    }

    /// A fact's words, for telling the same fact again.
    static func key(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " }.split(separator: " ").joined(separator: " ")
    }
}
