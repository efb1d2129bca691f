import Assistant
public import Foundation
import Knowledge
import LocalEngines
public import Logging
public import SibylConfig
import SibylCore
import Storage
import Synchronization

/// Sibyl's application: the one owner of a process's long-lived services, and the use cases every
/// shell calls (the CLI, the HTTP server, the glasses).
///
/// One runtime per process holds one conversation store and one knowledge store (one database pool
/// per file), one conversation engine (so two answers never race in one conversation), the search
/// index loaded once and kept current, live settings, and the local engines, started on first use
/// and shared. `shutdown(grace:)` lets answers under way finish or saves them as cancelled, and
/// stops the local engines; `sibyl serve` runs it from its swift-service-lifecycle group.
///
/// The use cases live in `SibylRuntime+<Concern>.swift` files; shells only translate input and
/// render output.
public final class SibylRuntime: Sendable {
    /// The settings, current whenever they are read.
    let liveSettings: LiveSettings
    /// Conversations, messages, attachments, personas and the operations log: in the data
    /// directory, or in the shared database when one is named.
    let store: any ConversationStorage
    /// The facts about the user Sibyl keeps in mind, beside the conversations.
    let memoryStore: any MemoryStorage
    /// The memory's facts as vectors, for finding those that bear on a question.
    let memoryRecall = MemoryRecall()
    /// What changes in this runtime's data, for the pages that have it open.
    public let events = LiveEvents()
    public let logger: Logger
    /// The local engines (installed under `SIBYL_ENGINES`).
    let local: LocalEngineHost
    /// Progress of the local engines this process installs on first use (shared by every account).
    public var engineInstalls: LiveEvents { local.installs }
    /// Which provider serves each capability, as the settings say now.
    let providers: Providers
    /// The conversation engine every answer of this process goes through.
    let engine: ConversationEngine
    /// Answers under way.
    let turns: TurnRegistry
    /// The knowledge base, opened (and migrated) once, by whichever request comes first.
    /// The knowledge base as stored (SQLite, or this owner's part of the shared database), opened once.
    private let storedKnowledge = SingleFlight<any KnowledgeBase>()
    /// The stored knowledge base with its vectors in Pinecone, for the placement the settings named
    /// when it was made; a change of placement (another index, say) makes another.
    let placedKnowledge = Mutex<(placement: VectorPlacement, knowledge: SingleFlight<any KnowledgeBase>)?>(nil)
    /// The PostgreSQL `SIBYL_DATABASE_URL` names, shared with every account's runtime; nil when
    /// everything lives in the data directory.
    public let sharedDatabase: SharedDatabase?
    /// Whose knowledge base this runtime's is in the shared database.
    let knowledgeOwner: String
    /// Whether this runtime opened the shared database (and closes it at shutdown).
    private let ownsDatabase: Bool
    /// This process's claim to write answers into the data directory (see `AnswerLease`); the
    /// shared database keeps its own (see `InstanceLease`).
    private let answerLease: AnswerLease?
    let retrievers = Mutex<[RetrieverKey: Retriever]>([:])

    /// Where this runtime's conversations, documents and uploads live: the data directory for the
    /// local user, or an account's directory under it (`users/ID`) on a shared server.
    public let dataPaths: SibylPaths

    /// The settings as they are now.
    public var settings: Settings { liveSettings.current }
    /// Where the data directory is (settings, keys, accounts: what a server shares).
    public var paths: SibylPaths { liveSettings.paths }

    /// Opens the data directory named by the environment.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger = Logger(label: "sibyl")) throws {
        let paths = SibylPaths(environment: environment)
        try paths.createHome()
        let sharedDatabase = try SharedDatabase.named(by: environment, paths: paths, logger: logger)
        liveSettings = try LiveSettings(paths: paths, environment: environment, shared: sharedDatabase?.settings)
        dataPaths = paths
        let (base, memory, lease) = try Self.conversations(in: sharedDatabase, owner: "", paths: paths)
        (store, memoryStore, answerLease) = (ObservedConversationStore(base: base, events: events), memory, lease)
        self.logger = logger
        local = LocalEngineHost(
            layout: EngineLayout(environment: environment), packageIndex: EngineInstaller.packageIndex(environment: environment), logDirectory: paths.logs, logger: logger
        )
        providers = Providers(settings: liveSettings, local: local, logger: logger)
        engine = ConversationEngine(store: store, backend: SettingsChatBackend(providers: providers))
        turns = TurnRegistry()
        self.sharedDatabase = sharedDatabase
        knowledgeOwner = ""
        ownsDatabase = true
    }

    /// One account's runtime on a shared server: its own conversations, documents, personas and
    /// log in `dataHome`, with the settings, providers and local engines of `shared` (one model
    /// server for everyone). Nothing of one account's data is reachable from another's runtime.
    public init(sharing shared: SibylRuntime, dataHome: URL) throws {
        let paths = SibylPaths(home: dataHome)
        try paths.createHome()
        liveSettings = shared.liveSettings
        dataPaths = paths
        let owner = SharedDatabase.owner(ofAccount: dataHome.lastPathComponent)
        let (base, memory, lease) = try Self.conversations(in: shared.sharedDatabase, owner: owner, paths: paths)
        (store, memoryStore, answerLease) = (ObservedConversationStore(base: base, events: events), memory, lease)
        logger = shared.logger
        local = shared.local
        // The account's own keys: its part of the shared database, or its directory's secrets file.
        providers = shared.providers.withOwnKeys(shared.sharedDatabase.map { $0.settings.keys(owner: owner) } ?? SecretStore(file: paths.secretsFile))
        engine = ConversationEngine(store: store, backend: SettingsChatBackend(providers: providers))
        turns = TurnRegistry()
        sharedDatabase = shared.sharedDatabase
        knowledgeOwner = owner
        ownsDatabase = false
    }

    /// Where an owner's conversations live: its part of the shared database, or the SQLite file of
    /// its data directory (with the lease that settles answers a dead process left); the memory
    /// lives beside them.
    private static func conversations(in database: SharedDatabase?, owner: String, paths: SibylPaths) throws -> (any ConversationStorage, any MemoryStorage, AnswerLease?) {
        if let database {
            let stored = database.conversations(owner: owner)
            return (stored, stored, nil)
        }
        let file = try ConversationStore(path: paths.database.path, attachmentsDirectory: paths.attachments.path)
        let queued = QueuedConversationStore(file)
        return (queued, queued, AnswerLease(home: paths.home, store: file))
    }

    /// The knowledge base of this data directory (its part of the shared database, when one is
    /// named), opened once.
    func knowledgeBase() async throws -> any KnowledgeBase {
        let stored = try await storedKnowledge.value { [self] in
            if let sharedDatabase { return try await sharedDatabase.knowledgeBase(owner: knowledgeOwner) }
            return try KnowledgeStore(path: dataPaths.knowledgeDatabase.path)
        }
        let placement = VectorPlacement(settings)
        guard placement.store == .pinecone else { return stored }
        let placed = placedKnowledge.withLock { current in
            if let current, current.placement == placement { return current.knowledge }
            let made = SingleFlight<any KnowledgeBase>()
            current = (placement, made)
            return made
        }
        return try await placed.value { [self] in try await withPinecone(stored, placement) }
    }

    /// The persona new conversations use.
    public var defaultPersona: String { settings[.persona] }

    /// Lets answers under way finish within `grace`, then cancels the rest; each is saved either
    /// way, unless its store does not answer by `deadline`.
    public func finishAnswers(grace: Duration, by deadline: ContinuousClock.Instant? = nil) async {
        await turns.finishAll(grace: grace, by: deadline ?? .now + grace + Self.closingTime)
    }

    /// How long closing takes at most once answers have ended: saving a cancelled answer, stopping
    /// the local engines, letting the shared database go.
    public static let closingTime = Duration.seconds(5)

    /// Stops the process's work by `deadline` (by default `grace` and `closingTime` from now):
    /// answers under way get `grace` to finish, then are cancelled (and saved as such), the local
    /// engines this process started are stopped, and the shared database is let go. What does not
    /// end by the deadline (a database that stopped answering) is given up; the process's exit
    /// ends it, and the child engines are signalled then too.
    public func shutdown(grace: Duration = .zero, by deadline: ContinuousClock.Instant? = nil) async {
        let deadline = deadline ?? .now + grace + Self.closingTime
        await turns.finishAll(grace: grace, by: deadline)
        if await !waitForWork(until: deadline, { await self.local.shutdown() }) {
            logger.warning("the local engines did not stop in time; they are signalled as the process exits")
        }
        if ownsDatabase {
            await providers.stopTools()
            await sharedDatabase?.close(by: deadline)
        }
    }
}
