import Foundation

/// The local chat models Sibyl installs; `chat.local_model` picks one, `--model` overrides it.
public enum LocalChatModel: String, LocalModelChoice {
    /// Qwen2.5-Coder 1.5B Instruct (component `chat`): the default, right far more often.
    case standard = "default"
    /// Qwen2.5-Coder 0.5B Instruct (component `chat-fast`): about three times quicker and a third
    /// of the memory (0.8 GB against 2.2 GB as Sibyl runs them), but often wrong on facts.
    case fast

    /// The model name its llama-server answers to, and that answers record.
    public var name: String {
        switch self {
        case .standard: "qwen2.5-coder-1.5b-instruct"
        case .fast: "qwen2.5-coder-0.5b-instruct"
        }
    }

    /// The component that installs it.
    public var component: String {
        switch self {
        case .standard: "chat"
        case .fast: "chat-fast"
        }
    }

    /// How well it translates, as `sibyl eval --translations scripts/eval/translations.jsonl`
    /// measured it (corpus chrF, 0 … 100, from English into the language and back; 2 cores of an
    /// AMD EPYC). Languages it translates poorly are named in `sibyl providers check`.
    public var translationChrF: [(language: String, into: Double, from: Double)] {
        switch self {
        case .standard: [("Korean", 25.4, 48.6), ("Indonesian", 45.1, 56.3)]
        case .fast: [("Korean", 15.1, 35.5), ("Indonesian", 3.3, 41.4)]
        }
    }

    /// Below this chrF into a language, translations into it are poor enough to say so: on the
    /// team's set, the default model's Korean at 25 names the wrong weekday and mistranslates
    /// whole phrases, and its Indonesian at 45 picks wrong words ("tabel" for a restaurant table).
    public static let poorTranslationChrF = 50.0

    /// A note for `sibyl providers check` when this model translates some languages poorly.
    public var translationNote: String? {
        let poor = translationChrF.filter { $0.into < Self.poorTranslationChrF }
        guard !poor.isEmpty else { return nil }
        let figures = poor.map { "\($0.language) \(String(format: "%.0f", $0.into))" }.joined(separator: ", ")
        let languages = poor.map(\.language).joined(separator: " and ")
        return "Translation: the local model \(name) translates into \(languages) poorly (chrF \(figures) of 100 on "
            + "scripts/eval/translations.jsonl). For those languages use a remote chat provider: sibyl config set chat.provider remote, "
            + "with chat.base_url and a key (sibyl keys set openai)."
    }

    /// The choices in words, for messages.
    public static var choices: String {
        allCases.map { "\($0.rawValue) (\($0.name))" }.joined(separator: ", ")
    }
}
