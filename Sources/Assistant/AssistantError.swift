import Foundation

/// Problems the conversation engine reports in words a user can act on.
public enum AssistantError: Error, LocalizedError, Equatable {
    case unknownPersona(String, known: [String])
    case builtInPersona(String)
    case conversationNotFound(UUID)
    case messageTooLong(tokens: Int, budget: Int)
    case nothingToRetry
    case busy
    case missingAPIKey(capability: String)
    case noModel(capability: String)

    public var errorDescription: String? {
        switch self {
        case .unknownPersona(let name, let known):
            "There is no persona '\(name)'. Known personas: \(known.joined(separator: ", ")). Add one with `sibyl personas add`."
        case .builtInPersona(let name):
            "'\(name)' is built in and cannot be removed (a persona of your own with that name would replace it)."
        case .conversationNotFound(let id):
            "Conversation \(id.uuidString.prefix(8).lowercased()) does not exist. Run `sibyl conversations list`."
        case .messageTooLong(let tokens, let budget):
            "The message is about \(tokens) tokens, more than the \(budget) the model's context leaves for it. Shorten it or use a model with a larger context (`sibyl config set chat.context_window N`)."
        case .nothingToRetry:
            "There is no question to retry in this conversation yet."
        case .busy:
            "An answer is still being written in this conversation; wait for it or cancel it first."
        case .missingAPIKey(let capability):
            "No API key for \(capability). Store one with `sibyl keys set openai` (or set OPENAI_API_KEY), or point Sibyl at a local OpenAI-compatible server with `OPENAI_BASE_URL=http://127.0.0.1:8080/v1`."
        case .noModel(let capability):
            "No model is configured for \(capability): set one with `sibyl config set \(capability).model NAME`."
        }
    }
}
