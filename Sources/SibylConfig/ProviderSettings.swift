import SibylCore

/// Everything needed to reach the provider of one capability.
public struct ProviderSettings: Sendable, Hashable {
    public var capability: CapabilityKind
    public var baseURL: String
    public var baseURLSource: SettingSource
    public var model: String
    public var modelSource: SettingSource
    /// The key itself; never print it.
    public var apiKey: String?
    /// Where the key came from, in words (`env OPENAI_API_KEY`, `stored key 'openai'`, `none`).
    public var keySource: String
    /// The stored key's name this capability uses.
    public var keyName: String
    /// Whether the capability runs on Sibyl's local engine rather than a remote API.
    public var isLocal: Bool
    /// Why local or remote was chosen, in words.
    public var choice: String

    /// The public OpenAI API, used when no base URL is configured.
    public static let openAIBaseURL = "https://api.openai.com/v1"

    /// Whether this is OpenAI's own API, which cannot work without a key.
    public var isOpenAI: Bool {
        baseURL.lowercased().contains("://api.openai.com")
    }
}

extension Settings {
    /// Resolves provider, model and key for a capability. On a shared server an account's own
    /// stored key (`personal`) comes first; then the environment, then the shared stored keys.
    public func provider(for capability: CapabilityKind, secrets: any SecretReading, personal: (any SecretReading)? = nil) throws -> ProviderSettings {
        let base = resolve(.baseURL(for: capability), over: .baseURL)
        let model = resolve(Setting<String>.model(for: capability).key)
        let keyName = self[.keyName(for: capability)]
        // The database key is never sent anywhere.
        let readable = keyName != DatabaseKey.secretName
        var apiKey: String?
        var keySource = "none"
        let specificVariable = "\(capability.environmentPrefix)_API_KEY"
        if readable, let key = try personal?.secret(named: keyName), !key.isEmpty {
            apiKey = key
            keySource = "your key '\(keyName)'"
        } else if let key = environment[specificVariable], !key.isEmpty {
            apiKey = key
            keySource = "env \(specificVariable)"
        } else if keyName == "openai", let key = environment["OPENAI_API_KEY"], !key.isEmpty {
            apiKey = key
            keySource = "env OPENAI_API_KEY"
        } else if readable, let key = try secrets.secret(named: keyName), !key.isEmpty {
            apiKey = key
            keySource = "stored key '\(keyName)'"
        }
        let preference = capability.hasLocalEngine ? self[.provider(for: capability)] : .remote
        let isLocal: Bool
        let choice: String
        switch preference {
        case .local:
            (isLocal, choice) = (true, "local (\(capability.rawValue).provider)")
        case .remote:
            (isLocal, choice) = (false, capability.hasLocalEngine ? "remote (\(capability.rawValue).provider)" : "remote (no local engine)")
        case .auto:
            // With neither a server nor a key configured, the local engine is the only thing that can work.
            let configured = base.value != nil || apiKey != nil
            (isLocal, choice) = configured ? (false, "remote (a base URL or key is set)") : (true, "local (no base URL or key set)")
        }
        return ProviderSettings(
            capability: capability,
            baseURL: base.value ?? ProviderSettings.openAIBaseURL,
            baseURLSource: base.value == nil ? .defaultValue : base.source,
            model: model.value ?? "",
            modelSource: model.source,
            apiKey: apiKey,
            keySource: keySource,
            keyName: keyName,
            isLocal: isLocal,
            choice: choice
        )
    }

    /// The stored keys everyone uses: the shared database's, or the secrets file of this data directory.
    public var secrets: any SecretReading { shared?.keys ?? SecretStore(file: paths.secretsFile) }
}
