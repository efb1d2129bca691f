import Foundation
import SibylCore

/// Makes short titles for new conversations.
enum TitleMaker {
    /// The first words of a question: at most 6 words and 48 characters.
    static func firstWords(of text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        let words = line.split(whereSeparator: \.isWhitespace)
        var title = ""
        for word in words.prefix(6) {
            let candidate = title.isEmpty ? String(word) : "\(title) \(word)"
            if candidate.count > 48 { break }
            title = candidate
        }
        if title.isEmpty { title = String(line.prefix(48)) }
        if words.count > 6 || title.count < line.trimmingCharacters(in: .whitespacesAndNewlines).count { title += "…" }
        return title.isEmpty ? "Untitled" : title
    }

    /// Asks the model for a title; nil when it fails or answers with something unusable.
    static func askModel(_ model: any ChatModel, modelName: String, question: String) async -> String? {
        let request = ChatRequest(
            model: modelName,
            messages: [
                .system("You name conversations. Reply with a title of 2 to 6 words that names the topic of the user's question, in the question's language, with no quotes and no final punctuation. Do not answer the question."),
                .user("Question: \(question.prefix(600))\n\nTitle:"),
            ],
            sampling: Sampling(temperature: 0.2, maxTokens: 24)
        )
        guard let completion = try? await model.complete(request) else { return nil }
        return clean(completion.text)
    }

    /// Trims a model's title answer down to the title.
    static func clean(_ raw: String) -> String? {
        var line = raw.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? ""
        line = line.trimmingCharacters(in: .whitespacesAndNewlines)
        for prefix in ["title:", "Title:", "TITLE:"] where line.hasPrefix(prefix) {
            line = String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let wrapping: Set<Character> = ["\"", "'", "“", "”", "«", "»", "*", "#", "`", "‘", "’"]
        while let first = line.first, wrapping.contains(first) { line.removeFirst() }
        while let last = line.last, wrapping.contains(last) || ".:;!".contains(last) { line.removeLast() }
        line = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty, line.count <= 80 else { return nil }
        return line
    }
}
