/// A named way for the assistant to behave: a system prompt and optional model settings.
public struct Persona: Sendable, Hashable, Codable, Identifiable {
    public var name: String
    public var systemPrompt: String
    /// A model this persona prefers over the configured chat model.
    public var model: String?
    /// How this persona samples, over the settings' choices.
    public var sampling: Sampling
    /// A short description for listings.
    public var summary: String?
    public var isBuiltIn: Bool

    public var id: String { name }

    /// The sampling temperature (part of `sampling`).
    public var temperature: Double? {
        get { sampling.temperature }
        set { sampling.temperature = newValue }
    }

    public init(name: String, systemPrompt: String, model: String? = nil, sampling: Sampling = Sampling(), summary: String? = nil, isBuiltIn: Bool = false) {
        self.name = name
        self.systemPrompt = systemPrompt
        self.model = model
        self.sampling = sampling
        self.summary = summary
        self.isBuiltIn = isBuiltIn
    }
}
