public import SibylCore
public import Storage

/// The personas Sibyl ships with and those the user defined.
public struct PersonaCatalog: Sendable {
    let store: any ConversationStorage

    public init(store: any ConversationStorage) {
        self.store = store
    }

    /// Personas that always exist.
    public static let builtIn: [Persona] = [
        Persona(
            name: "assistant",
            systemPrompt: """
            You are Sibyl, a helpful, knowledgeable assistant. Answer accurately and directly. \
            When you are not sure, say so instead of guessing. Use Markdown only where it helps.
            """,
            summary: "helpful general assistant",
            isBuiltIn: true
        ),
        Persona(
            name: "concise",
            systemPrompt: """
            You are Sibyl. Answer in one short sentence of plain text, at most 25 words: no Markdown, \
            no lists, no preamble. Your answer is shown on a small screen such as AR glasses.
            """,
            summary: "one plain sentence, for small screens like glasses",
            isBuiltIn: true
        ),
        Persona(
            name: "translator",
            systemPrompt: translatorPrompt(target: "English"),
            sampling: Sampling(temperature: 0.2),
            summary: "translates everything into a target language (default English)",
            isBuiltIn: true
        ),
    ]

    /// The system prompt for translating into `target`.
    public static func translatorPrompt(target: String) -> String {
        """
        You are a translator. Translate each message the user sends into \(target), faithfully: keep \
        the meaning, tone, names and formatting. Reply with the translation only, with no quotes, \
        notes, explanations or answers to questions in the text. If the text is already in \(target), \
        reply with it unchanged.
        """
    }

    /// A persona by name: user-defined ones shadow built-ins of the same name.
    public func persona(named name: String) async throws -> Persona {
        if let custom = try await store.persona(named: name) { return custom }
        if let builtIn = Self.builtIn.first(where: { $0.name.lowercased() == name.lowercased() }) { return builtIn }
        throw AssistantError.unknownPersona(name, known: try await all().map(\.name))
    }

    /// All personas, built-in first.
    public func all() async throws -> [Persona] {
        let custom = try await store.personas()
        let customNames = Set(custom.map { $0.name.lowercased() })
        return Self.builtIn.filter { !customNames.contains($0.name.lowercased()) } + custom
    }

    /// Adds or replaces a user-defined persona.
    public func save(_ persona: Persona) async throws {
        var persona = persona
        persona.isBuiltIn = false
        try await store.save(persona)
    }

    /// Removes a user-defined persona; built-ins cannot be removed.
    public func remove(named name: String) async throws {
        if try await store.deletePersona(named: name) { return }
        if Self.builtIn.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            throw AssistantError.builtInPersona(name)
        }
        throw AssistantError.unknownPersona(name, known: try await all().map(\.name))
    }
}
