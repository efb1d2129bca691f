extension BPETokenizer {
    /// The byte-pair encodings OpenAI's models use.
    public enum Encoding: String, Sendable, CaseIterable, CustomStringConvertible {
        /// GPT-4, GPT-3.5 Turbo and the text-embedding-3 / ada-002 embedding models.
        case cl100kBase = "cl100k_base"
        /// GPT-4o, GPT-4.1, GPT-5 and the o-series reasoning models.
        case o200kBase = "o200k_base"

        /// tiktoken's name for the encoding.
        public var name: String { rawValue }

        public var description: String { rawValue }

        /// The rank file's name in the tokenizers directory.
        public var fileName: String { "\(rawValue).tiktoken" }

        /// The special tokens and their ids, as tiktoken defines them.
        public var specialTokens: [String: Int] {
            switch self {
            case .cl100kBase:
                [
                    "<|endoftext|>": 100_257,
                    "<|fim_prefix|>": 100_258,
                    "<|fim_middle|>": 100_259,
                    "<|fim_suffix|>": 100_260,
                    "<|endofprompt|>": 100_276,
                ]
            case .o200kBase:
                ["<|endoftext|>": 199_999, "<|endofprompt|>": 200_018]
            }
        }

        /// How many ordinary tokens the official rank file holds, which loading checks so that a
        /// wrong or truncated file is an error rather than silently wrong counts.
        public var rankCount: Int {
            switch self {
            case .cl100kBase: 100_256
            case .o200kBase: 199_998
            }
        }
    }

    /// The encoding a model uses, or nil for a model this table does not know (whose tokens can
    /// then only be estimated).
    ///
    /// Follows tiktoken's model table: exact names first, then prefixes (dated snapshots,
    /// fine-tunes). A provider prefix such as `openai/` is ignored.
    public static func encoding(forModel name: String) -> Encoding? {
        var model = name.lowercased()
        if let slash = model.lastIndex(of: "/") {
            model = String(model[model.index(after: slash)...])
        }
        if let encoding = modelEncodings[model] {
            return encoding
        }
        return modelPrefixEncodings.first { model.hasPrefix($0.prefix) }?.encoding
    }

    private static let modelEncodings: [String: Encoding] = [
        "o1": .o200kBase, "o3": .o200kBase, "o4-mini": .o200kBase,
        "gpt-5": .o200kBase, "gpt-4.1": .o200kBase, "gpt-4.5": .o200kBase, "gpt-4o": .o200kBase,
        "gpt-4": .cl100kBase, "gpt-3.5-turbo": .cl100kBase, "gpt-3.5": .cl100kBase, "gpt-35-turbo": .cl100kBase,
        "davinci-002": .cl100kBase, "babbage-002": .cl100kBase,
        "text-embedding-ada-002": .cl100kBase,
        "text-embedding-3-small": .cl100kBase, "text-embedding-3-large": .cl100kBase,
    ]

    /// Checked in order, so a longer prefix that shares a start with a shorter one comes first.
    private static let modelPrefixEncodings: [(prefix: String, encoding: Encoding)] = [
        ("o1-", .o200kBase), ("o3-", .o200kBase), ("o4-", .o200kBase),
        ("gpt-5", .o200kBase), ("gpt-4.5-", .o200kBase), ("gpt-4.1-", .o200kBase),
        ("chatgpt-4o-", .o200kBase), ("gpt-4o-", .o200kBase),
        // gpt-oss uses o200k_harmony: o200k_base's ranks and pattern with more special tokens,
        // so ordinary text encodes and counts the same.
        ("gpt-oss-", .o200kBase),
        ("gpt-4-", .cl100kBase), ("gpt-3.5-turbo-", .cl100kBase), ("gpt-35-turbo-", .cl100kBase),
        ("text-embedding-3-", .cl100kBase),
        ("ft:gpt-4o", .o200kBase), ("ft:gpt-4.1", .o200kBase),
        ("ft:gpt-4", .cl100kBase), ("ft:gpt-3.5-turbo", .cl100kBase),
        ("ft:davinci-002", .cl100kBase), ("ft:babbage-002", .cl100kBase),
    ]
}
