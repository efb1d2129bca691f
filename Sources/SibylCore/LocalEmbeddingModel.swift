import Foundation

/// The sentence embedders Sibyl runs on this machine; `embeddings.local_model` picks one.
public enum LocalEmbeddingModel: String, LocalModelChoice {
    /// all-MiniLM-L6-v2 (component `embeddings`): 384 dimensions, quick to ingest.
    case standard = "default"
    /// all-mpnet-base-v2 (component `embeddings-large`): 768 dimensions, finds more, at about six
    /// times the compute per passage.
    case large

    /// The model's name, as vectors and results record it.
    public var name: String {
        switch self {
        case .standard: "all-MiniLM-L6-v2"
        case .large: "all-mpnet-base-v2"
        }
    }

    /// The component that installs it.
    public var component: String {
        switch self {
        case .standard: "embeddings"
        case .large: "embeddings-large"
        }
    }
}
