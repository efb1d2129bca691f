import Assistant

extension SibylRuntime {
    /// Conversations: asking and answering (with the one grounding decision), the chats clients
    /// keep (`/v1`), messages, personas, images.
    public var conversations: Conversations { Conversations(runtime: self) }
    /// The knowledge base: adding, listing, removing and searching documents, and evaluating retrieval.
    public var documents: Documents { Documents(runtime: self) }
    /// Speech: transcribing, speaking, and spoken questions.
    public var voice: Voice { Voice(runtime: self) }
    /// Glasses sessions: Monocle or Frame glasses answered by this runtime.
    public var glasses: Glasses { Glasses(runtime: self) }
    /// The user's memory: facts Sibyl proposes or the user writes, kept once accepted.
    public var memory: Memory { Memory(runtime: self) }
    /// Running Sibyl: settings, keys, local engines and models, providers, the operations log.
    public var admin: Admin { Admin(runtime: self) }

    /// Conversations, asking and answering, personas and images (see `SibylRuntime.conversations`).
    public struct Conversations: Sendable {
        let runtime: SibylRuntime
    }

    /// The knowledge base's use cases (see `SibylRuntime.documents`).
    public struct Documents: Sendable {
        let runtime: SibylRuntime
    }

    /// Speech's use cases (see `SibylRuntime.voice`).
    public struct Voice: Sendable {
        let runtime: SibylRuntime
    }

    /// Glasses sessions (see `SibylRuntime.glasses`).
    public struct Glasses: Sendable {
        let runtime: SibylRuntime
    }

    /// The memory's use cases (see `SibylRuntime.memory`).
    public struct Memory: Sendable {
        let runtime: SibylRuntime
    }

    /// Running Sibyl (see `SibylRuntime.admin`).
    public struct Admin: Sendable {
        let runtime: SibylRuntime
    }
}
