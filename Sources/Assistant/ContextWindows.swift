/// Context sizes of well-known models, so history fits without configuration.
public enum ContextWindows {
    /// Used when the model is unknown and nothing is configured: small enough for local models.
    public static let fallback = 8192

    private static let known: [(prefix: String, tokens: Int)] = [
        ("gpt-5", 400_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-4", 8192),
        ("gpt-3.5-turbo", 16_385),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("chatgpt-4o", 128_000),
    ]

    /// The context size of a model, if it is a known one (longest matching prefix wins).
    public static func tokens(for model: String) -> Int? {
        let name = model.lowercased()
        return known.filter { name.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }?.tokens
    }
}
