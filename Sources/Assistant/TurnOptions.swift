import Foundation
import SibylCore

/// What one answer may set for itself, over the settings and the persona; checked when it is made,
/// so no surface can hand the engine a value out of range or text that would steer the prompt.
public struct TurnOptions: Sendable, Hashable {
    /// A chat model other than the configured one (a vision model for a photo, say).
    public var model: String?
    public private(set) var temperature: Double?
    public private(set) var maxTokens: Int?
    /// The language answers are written in (`Korean`, `English` …), whatever the question's; nil:
    /// the model answers in the question's language.
    public private(set) var answerLanguage: String?

    /// The settings' and the persona's choices throughout.
    public init() {}

    /// Options for one answer: `temperature` between 0 and 2, `maxTokens` at least 1, and
    /// `answerLanguage` a language's name as a person writes it (letters, spaces and hyphens, up to
    /// 40 characters), because it goes into the system prompt.
    public init(model: String?, temperature: Double? = nil, maxTokens: Int? = nil, answerLanguage: String? = nil) throws(AssistantError) {
        if let temperature, !(0...2).contains(temperature) { throw .invalidTemperature(temperature) }
        if let maxTokens, maxTokens < 1 { throw .invalidMaxTokens(maxTokens) }
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.answerLanguage = try Self.languageName(answerLanguage)
    }

    /// What the system prompt adds for `answerLanguage`.
    public var languageInstruction: String? {
        answerLanguage.map { "Always write your answer in \($0), whatever language the question is in." }
    }

    /// A language's name, trimmed; nil for none; refused when it is anything but a name.
    static func languageName(_ text: String?) throws(AssistantError) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.count <= 40, text.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == " " || $0 == "-" }) else {
            throw .invalidAnswerLanguage(text)
        }
        return text
    }
}
