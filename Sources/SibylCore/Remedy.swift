/// What a person can do about a problem, as data: each surface says it its own way (the CLI names
/// a command, the HTTP API returns a machine-readable code, the web UI links to the right page).
public enum Remedy: Sendable, Hashable {
    /// Store an API key under this name.
    case setKey(name: String)
    /// Install a local engine or model component.
    case install(component: String)
    /// Re-embed a collection with the current embedding model.
    case reindex(collection: String)
    /// Change a setting.
    case configure(setting: String)
    /// Look at the conversations to find the right one.
    case listConversations
    /// Look at the documents to find the right one.
    case listDocuments
    /// Look at what Sibyl remembers about the user.
    case listMemory
    /// Look at the personas, or add one.
    case listPersonas
    /// Look at the settings.
    case listSettings
    /// Check which provider serves each capability and whether it works.
    case checkProviders
    /// Pair the glasses first.
    case pairGlasses
    /// Ask again: the partial answer was kept.
    case retry
    /// Use a file that Sibyl exported.
    case useExportedArchive
}

/// An error that knows what the person seeing it can do about it.
public protocol RemedyProviding {
    /// The remedy, when there is one.
    var remedy: Remedy? { get }
}
