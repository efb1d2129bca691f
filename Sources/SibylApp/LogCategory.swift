import Assistant
/// What an entry of the operations log is about; `sibyl logs --operation` and the Logs page
/// filter by it (`docs` takes every `docs.…` entry).
public enum LogCategory: String, Sendable, Hashable, CaseIterable {
    /// A question answered (or failed, or stopped) in a conversation.
    case ask
    /// A question answered from the documents, or declined because none was relevant.
    case askDocs = "ask.docs"
    /// A chat the client keeps (`/v1/chat/completions`).
    case completions
    /// A spoken question.
    case voice
    /// A question asked through glasses, with its stage times.
    case glasses
    case glassesRelay = "glasses.relay"
    /// A question from Brilliant's Noa phone app.
    case noa
    case glassesEmulator = "glasses.emulator"
    case docsAdd = "docs.add"
    case docsRemove = "docs.remove"
    case docsRename = "docs.rename"
    case docsVectorStore = "docs.vector_store"
    case docsReindex = "docs.reindex"
    case conversationsDelete = "conversations.delete"
    case conversationsImport = "conversations.import"
    case personasSave = "personas.save"
    case personasRemove = "personas.remove"
    /// A fact the user wrote, accepted or forgot.
    case memoryAdd = "memory.add"
    /// Facts proposed from a conversation that went quiet.
    case memoryPropose = "memory.propose"
    case memoryAccept = "memory.accept"
    case memoryForget = "memory.forget"
    case configSet = "config.set"
    case configUnset = "config.unset"
    case keysSet = "keys.set"
    case keysRemove = "keys.remove"
    case modelsInstall = "models.install"
    case modelsRemove = "models.remove"
    /// A retrieval, answer or translation evaluation.
    case eval
    /// Images drawn.
    case imagine
}
