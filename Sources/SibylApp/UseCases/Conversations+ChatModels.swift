import Assistant
import Foundation
import LocalEngines
import SibylCore

/// A chat model a person may pick for a conversation.
public struct ChatModelChoice: Sendable, Hashable {
    /// The name answers are asked for with (a turn's `model`).
    public var id: String
    /// Whether it runs on this machine (llama.cpp) rather than at the provider.
    public var local: Bool
    /// The setting and value that make it the default: `chat.model`, or `chat.local_model` (default, fast).
    public var setting: (key: String, value: String) {
        if local, let model = LocalChatModel.allCases.first(where: { $0.name == id }) { return ("chat.local_model", model.rawValue) }
        return ("chat.model", id)
    }
}

/// The chat models to offer, and the one answers use when none is picked.
public struct ChatModelChoices: Sendable, Hashable {
    public var current: String?
    public var models: [ChatModelChoice]
    /// Why the provider's list could not be read, when it could not.
    public var problem: String?
}

extension SibylRuntime.Conversations {
    /// The chat models one may pick: the provider's (its `/models`, less those that only embed,
    /// transcribe, speak, draw or moderate) and the local models that are installed.
    public func chatModels() async -> ChatModelChoices {
        let providers = runtime.providers
        var models: [ChatModelChoice] = []
        var problem: String?
        var current: String?
        let installed = Set(runtime.local.installer.status().filter(\.installed).map(\.name))
        let local = LocalChatModel.allCases.filter { installed.contains($0.component) }.map { ChatModelChoice(id: $0.name, local: true) }
        if providers.chatsLocally {
            current = (try? providers.localChatModel())?.name
        } else {
            do {
                let (client, provider) = try providers.remoteClient(for: .chat)
                current = try? await providers.chatModelName(client: client, provider: provider)
                models = try await client.models().map(\.id).filter(Self.chats).sorted().map { ChatModelChoice(id: $0, local: false) }
            } catch {
                problem = ConversationEngine.describe(error)
            }
        }
        return ChatModelChoices(current: current, models: models + local, problem: problem)
    }

    /// Whether a provider's model is one to chat with: OpenAI lists embedding, speech, image and
    /// moderation models beside its chat models, and base models that only continue text.
    static func chats(_ id: String) -> Bool {
        let others = ["embedding", "whisper", "tts", "dall-e", "gpt-image", "moderation", "transcribe", "realtime", "audio", "search", "davinci-002", "babbage-002"]
        let lowered = id.lowercased()
        return !others.contains { lowered.contains($0) }
    }
}
