public import Foundation
public import SibylCore

/// Problems the application reports in words a user can act on, on any surface.
public enum AssistantError: Error, LocalizedError, Equatable, RemedyProviding {
    case unknownPersona(String, known: [String])
    case builtInPersona(String)
    case personaExists(String)
    case conversationNotFound(UUID)
    case messageNotFound(UUID)
    case attachmentNotFound(UUID)
    case messageTooLong(tokens: Int, budget: Int)
    case nothingToRetry
    case busy
    case missingAPIKey(capability: String)
    case noModel(capability: String)
    case emptyQuestion
    case emptyQuery
    case emptyPrompt
    case emptyAudio
    case emptyKey
    case emptyPersonaPrompt
    case invalidSampling(SamplingError)
    case invalidAnswerLanguage(String)
    /// More images than one request to the model may ask for (or none).
    case invalidImageCount(Int, model: String?)
    /// A size the image model does not draw.
    case invalidImageSize(String, model: String, accepted: [String])
    case noSpeech
    case unknownKey(String)
    case noDocumentsFound([String])
    case ambiguousDocument(String, candidates: [String])
    case turnNotFound(UUID)
    case unknownLocalModel(String, known: String)
    case memoryFactNotFound(String)
    case ambiguousMemoryFact(String, candidates: [String])
    case emptyMemoryFact
    case memoryFactTooLong(Int)

    public var errorDescription: String? {
        switch self {
        case .unknownPersona(let name, let known):
            "There is no persona '\(name)'. Known personas: \(known.joined(separator: ", "))."
        case .builtInPersona(let name):
            "'\(name)' is built in and cannot be removed (a persona of your own with that name would replace it)."
        case .personaExists(let name):
            "There is already a persona '\(name)': choose another name."
        case .conversationNotFound(let id):
            "Conversation \(id.uuidString.prefix(8).lowercased()) does not exist."
        case .messageNotFound(let id):
            "Message \(id.uuidString.prefix(8).lowercased()) does not exist in this conversation."
        case .attachmentNotFound(let id):
            "There is no image or file \(id.uuidString.prefix(8).lowercased())."
        case .messageTooLong(let tokens, let budget):
            "The message is about \(tokens) tokens, more than the \(budget) the model's context leaves for it. Shorten it, or use a model with a larger context (the chat.context_window setting)."
        case .nothingToRetry:
            "There is no question to retry in this conversation yet."
        case .busy:
            "An answer is still being written in this conversation; wait for it or stop it first."
        case .missingAPIKey(let capability):
            "No API key for \(capability): OpenAI's API needs one. Store a key, or point Sibyl at a local OpenAI-compatible server (the base_url setting), or use the local engines."
        case .noModel(let capability):
            "No model is configured for \(capability) (the \(capability).model setting)."
        case .emptyQuestion:
            "The question is empty."
        case .emptyQuery:
            "There is nothing to search for."
        case .emptyPrompt:
            "The prompt is empty."
        case .emptyAudio:
            "The recording is empty."
        case .emptyKey:
            "The key is empty."
        case .emptyPersonaPrompt:
            "The persona's system prompt is empty."
        case .invalidSampling(let error):
            error.description
        case .invalidAnswerLanguage(let text):
            "'\(text.prefix(40))' is not a language's name (such as Korean): only letters, spaces and hyphens, up to 40 characters."
        case .invalidImageCount(let count, let model):
            if let model, ImageSizes.mostPerRequest(by: model) == 1 {
                "\(model) draws one image at a time, not \(count)."
            } else {
                "Between 1 and \(model.map(ImageSizes.mostPerRequest(by:)) ?? 10) images can be drawn at once, not \(count)."
            }
        case .invalidImageSize(let size, let model, let accepted):
            "\(model) does not draw \(size) images: choose \(accepted.joined(separator: ", "))."
        case .noSpeech:
            "No speech was heard in the recording. Speak closer to the microphone, or check that it is not muted."
        case .unknownKey(let name):
            "There is no stored key '\(name)'."
        case .noDocumentsFound(let inputs):
            "No documents found in \(inputs.joined(separator: ", ")): give files or folders with .txt, .md, .html, .pdf, .docx or image files."
        case .ambiguousDocument(let text, let candidates):
            "'\(text)' matches several documents: \(candidates.joined(separator: ", ")). Use the document's id."
        case .turnNotFound(let id):
            "No answer \(id.uuidString.prefix(8).lowercased()) is being written now; it may have ended (its message holds the result)."
        case .unknownLocalModel(let name, let known):
            "The local chat engine has no model '\(name)'. Its models are \(known); other models need a remote provider."
        case .memoryFactNotFound(let id):
            "Nothing in your memory has the id \(id)."
        case .ambiguousMemoryFact(let id, let candidates):
            "Several facts in your memory start with \(id): \(candidates.joined(separator: ", ")). Give more of the id."
        case .emptyMemoryFact:
            "A fact to remember needs some words."
        case .memoryFactTooLong(let length):
            "A fact to remember is one sentence of at most \(MemoryFact.maximumLength) characters, not \(length)."
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .unknownPersona: .listPersonas
        case .conversationNotFound: .listConversations
        case .messageTooLong: .configure(setting: "chat.context_window")
        case .missingAPIKey: .setKey(name: "openai")
        case .noModel(let capability): .configure(setting: "\(capability).model")
        case .unknownLocalModel: .checkProviders
        case .ambiguousDocument: .listDocuments
        case .memoryFactNotFound, .ambiguousMemoryFact: .listMemory
        case .unknownKey: nil
        default: nil
        }
    }
}
