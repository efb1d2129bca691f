/// A named way for the assistant to behave: a system prompt and optional model settings.
public struct Persona: Sendable, Hashable, Codable, Identifiable {
    public var name: String
    public var systemPrompt: String
    /// A model this persona prefers over the configured chat model.
    public var model: String?
    public var temperature: Double?
    /// A short description for listings.
    public var summary: String?
    public var isBuiltIn: Bool

    public var id: String { name }

    public init(name: String, systemPrompt: String, model: String? = nil, temperature: Double? = nil, summary: String? = nil, isBuiltIn: Bool = false) {
        self.name = name
        self.systemPrompt = systemPrompt
        self.model = model
        self.temperature = temperature
        self.summary = summary
        self.isBuiltIn = isBuiltIn
    }
}
