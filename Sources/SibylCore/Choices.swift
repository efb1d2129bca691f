/// The words of Sibyl's settings that name one of a few choices: plain values every layer may use,
/// declared once so that a setting, the code that reads it and the code that acts on it agree.

/// Which kind of Brilliant Labs glasses a device is (`glasses.kind`).
public enum GlassesKind: String, Sendable, Hashable, Codable, CaseIterable {
    case monocle
    case frame
}

/// Which kind of index searches a collection's vectors (`docs.index`).
public enum IndexChoice: String, Sendable, Hashable, Codable, CaseIterable {
    /// Score every vector: exact results, time linear in the collection.
    case exact
    /// Walk an HNSW graph: approximate results, time about logarithmic in the collection.
    case hnsw
    /// Let the index policy choose from the collection's size.
    case automatic
}

/// How hybrid search combines the vector and BM25 rankings (`docs.fusion`).
public enum FusionMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reciprocal-rank fusion: Σ weight / (k + rank); ignores how far apart the scores are.
    case rank
    /// Weighted sum of each ranking's scores, min-max scaled to 0…1 over its candidates.
    case score
}

/// Where passages' vectors are searched (`docs.vector_store`).
public enum VectorStoreKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// In the knowledge base itself (the data directory's index, or pgvector).
    case embedded
    /// In a Pinecone index.
    case pinecone
}

/// How new conversations get their title (`titles`).
public enum TitleStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// Ask the chat model for a short title, falling back to the first words.
    case model
    /// The first words of the first question.
    case firstWords = "first-words"
}

/// How the end of a spoken question is heard (`voice.detector`).
public enum VoiceDetectorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Silero VAD, a neural detector that hears speech rather than loudness (the stt component's).
    case silero
    /// Loudness against the room's noise: no model needed.
    case energy

    /// The hang-over when `voice.hangover_ms` is unset: a detector that tells speech from noise
    /// can stop sooner than one that only hears loudness.
    public var defaultHangoverMilliseconds: Int {
        switch self {
        case .silero: 500
        case .energy: 900
        }
    }
}

/// Whether `sibyl serve` asks who is calling (`serve.auth`).
public enum AuthSetting: String, Sendable, Hashable, Codable, CaseIterable {
    /// Accounts when any exist or when listening beyond loopback; open otherwise.
    case auto
    /// Everyone who can connect is the local user: allowed on a loopback address only.
    case none
    /// Every request but health checks, the API document and sign-in must carry a session or token.
    case accounts
}

/// Which provider serves a capability (`chat.provider`, `stt.provider`, …).
public enum ProviderPreference: String, Sendable, Hashable, Codable, CaseIterable {
    /// The local engine unless a base URL or a key is configured.
    case auto
    /// Sibyl's local engine.
    case local
    /// The configured OpenAI-compatible API.
    case remote
}
