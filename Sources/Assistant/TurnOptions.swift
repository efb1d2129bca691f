import Foundation
public import SibylCore

/// What one answer may set for itself, over the settings and the persona; checked when it is made,
/// so no surface can hand the engine a value out of range or text that would steer the prompt.
public struct TurnOptions: Sendable, Hashable {
    /// A chat model other than the configured one (a vision model for a photo, say).
    public var model: String?
    /// How this answer samples, over the persona's and the settings' choices.
    public private(set) var sampling = Sampling()
    /// The language answers are written in (`Korean`, `English` …), whatever the question's; nil:
    /// the model answers in the question's language.
    public private(set) var answerLanguage: String?
    /// Where the asker is and their local time, for this answer only (never stored).
    public private(set) var situation: Situation?
    /// Facts from the user's memory found relevant to this question, with how relevant.
    public private(set) var remembered: [RememberedFact] = []

    /// The settings' and the persona's choices throughout.
    public init() {}

    /// Options for one answer: `sampling` within OpenAI's ranges (see `Sampling.check`), and
    /// `answerLanguage` a language's name as a person writes it (letters, spaces and hyphens, up to
    /// 40 characters), because it goes into the system prompt.
    public init(model: String?, sampling: Sampling = Sampling(), answerLanguage: String? = nil) throws(AssistantError) {
        do { try sampling.check() } catch { throw .invalidSampling(error) }
        self.model = model
        self.sampling = sampling
        self.answerLanguage = try Self.languageName(answerLanguage)
    }

    /// The temperature this answer asks for.
    public var temperature: Double? { sampling.temperature }

    /// The longest answer this answer allows.
    public var maxTokens: Int? { sampling.maxTokens }

    /// What the system prompt adds for `answerLanguage`.
    public var languageInstruction: String? {
        answerLanguage.map { "Always write your answer in \($0), whatever language the question is in." }
    }

    /// This options with the asker's situation (see `Situation`).
    public func with(_ situation: Situation?) -> TurnOptions {
        var options = self
        options.situation = situation
        return options
    }

    /// This options with facts from the user's memory (accepted ones, relevant to the question).
    public func remembering(_ facts: [RememberedFact]) -> TurnOptions {
        var options = self
        options.remembered = facts
        return options
    }

    /// What the system prompt adds for the remembered facts.
    public var memoryInstruction: String? {
        guard !remembered.isEmpty else { return nil }
        let lines = remembered.map { "- \($0.fact.text)" }.joined(separator: "\n")
        return "What you remember about the user (they asked you to; use it when it bears on the question, and do not mention it otherwise):\n" + lines
    }

    /// What the system prompt adds for the situation.
    public var situationInstruction: String? {
        guard let situation else { return nil }
        var facts: [String] = []
        if let place = situation.place { facts.append("they are at \(place)") }
        if let time = situation.localTime { facts.append("their local time is \(time)") }
        var lines: [String] = []
        if !facts.isEmpty { lines.append("What the asker's phone says about them, to use only when the question needs it: \(facts.joined(separator: "; ")).") }
        if situation.unseenPhoto {
            lines.append("A photo came with this question, but you were not given it: never describe or guess what it shows; answer from the words alone.")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Where someone asks from, as their phone tells it: a place (a street address) and the local
    /// time. Both are checked as data (one line each, of limited length), since they go into the
    /// system prompt.
    public struct Situation: Sendable, Hashable {
        /// The place, one line of at most 200 characters; nil when unknown.
        public let place: String?
        /// The local time as a person reads it ("Friday 27 November 2026, 18:30"); nil when unknown.
        public let localTime: String?
        /// A photo came with the question that the model is not given.
        public let unseenPhoto: Bool

        /// A situation from what a phone sent: `place` is cut to one line of 200 characters,
        /// `time` is a local date and time as `YYYY-MM-DD HH:MM[:SS[.ffffff]]` (Dart's
        /// `DateTime.toString()`, ISO 8601 with a space or a `T`), or one short line already written
        /// for people (letters, digits, spaces and `,.:/+-`), or dropped. Nil when neither is usable.
        public init?(place: String?, time: String?, unseenPhoto: Bool = false) {
            let line = place.map { text in
                String(text.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint }.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
                    .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            }
            self.place = line.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
            self.localTime = time.flatMap(Self.readableTime)
            self.unseenPhoto = unseenPhoto
            if self.place == nil && self.localTime == nil && !unseenPhoto { return nil }
        }

        static func readableTime(_ text: String) -> String? {
            let pattern = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?\s*$/
            guard let match = text.wholeMatch(of: pattern) else {
                // Already written for people ("Saturday, November 28, 2026, 10:52 AM", as the Noa
                // server's clients send it): kept when it is one short line of such words.
                let line = text.trimmingCharacters(in: .whitespaces)
                let readable = /[\p{L}\p{N}][\p{L}\p{N} ,.:\/+-]{5,59}/
                return line.wholeMatch(of: readable) != nil && line.contains(where: \.isNumber) ? line : nil
            }
            guard let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
                  let hour = Int(match.4), let minute = Int(match.5), (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = DateComponents(year: year, month: month, day: day)
            guard let date = calendar.date(from: parts), calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month else { return nil }
            let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
            let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
            let weekday = weekdays[calendar.component(.weekday, from: date) - 1]
            return "\(weekday) \(day) \(months[month - 1]) \(year), \(String(format: "%02d:%02d", hour, minute))"
        }
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
