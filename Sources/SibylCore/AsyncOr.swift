extension Optional where Wrapped == String {
    /// The value, or the result of an async fallback.
    package func asyncOr(_ fallback: () async throws -> String) async rethrows -> String {
        if let self { return self }
        return try await fallback()
    }
}
