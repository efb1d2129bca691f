import Assistant
import Foundation
import Knowledge
import MCP
import SibylApp
import SibylCore

/// What the MCP tools, resources and prompts do, over one account's runtime. A tool's failure is
/// its result (`isError`, in words an agent can act on), not a protocol error.
struct SibylTools: Sendable {
    let runtime: SibylRuntime
    let options: SibylMCP.Options

    /// The scheme of each document's text as a resource: `sibyl://documents/ID`.
    static let documentURIPrefix = "sibyl://documents/"

    static let all: [Tool] = [
        Tool(
            name: "search_documents",
            description: "Ranked passages of the user's documents for a query (hybrid: meaning and words), each with its document, page, section and score.",
            inputSchema: schema(
                ["query": .object(["type": "string", "description": "What to look for."]),
                 "limit": .object(["type": "integer", "minimum": 1, "maximum": 50, "description": "How many passages (default 5)."]),
                 "collection": .object(["type": "string", "description": "Only this collection (default: all)."])],
                required: ["query"]
            ),
            annotations: .init(readOnlyHint: true, openWorldHint: false)
        ),
        Tool(
            name: "ask_documents",
            description: "An answer to a question from the user's documents only, with its citations; when no passage is relevant enough, the plain statement that the documents do not answer it, with the closest passages. The question and answer are kept in the user's history.",
            inputSchema: schema(
                ["question": .object(["type": "string"]),
                 "collection": .object(["type": "string", "description": "Only this collection (default: all)."])],
                required: ["question"]
            ),
            annotations: .init(readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false)
        ),
        Tool(
            name: "list_documents",
            description: "The user's documents: id, name, path, collection, pages, passages and when each was added.",
            inputSchema: schema(["collection": .object(["type": "string", "description": "Only this collection (default: all)."])], required: []),
            annotations: .init(readOnlyHint: true, openWorldHint: false)
        ),
        Tool(
            name: "add_document",
            description: "Adds a document: either `text` (with a `title`), or `path`, a file the server may read (only inside the folders it was told to allow). A changed file replaces its earlier version.",
            inputSchema: schema(
                ["text": .object(["type": "string", "description": "The document's text (Markdown is kept)."]),
                 "title": .object(["type": "string", "description": "With text: the name it is kept under, and its title unless the text starts with a heading of its own."]),
                 "path": .object(["type": "string", "description": "A file (PDF, Word, Markdown, text, HTML, an image to read by OCR …) on the server."]),
                 "collection": .object(["type": "string", "description": "Where to add it (default: the default collection)."])],
                required: []
            ),
            annotations: .init(readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false)
        ),
        Tool(
            name: "recent_conversations",
            description: "The user's latest conversations with Sibyl, newest first: title, where they were held, when, and a preview.",
            inputSchema: schema(["limit": .object(["type": "integer", "minimum": 1, "maximum": 100, "description": "How many (default 10)."])], required: []),
            annotations: .init(readOnlyHint: true, openWorldHint: false)
        ),
    ]

    static func schema(_ properties: [String: Value], required: [String]) -> Value {
        .object(["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) })])
    }

    /// Runs a tool; what goes wrong comes back as the tool's error.
    func call(_ name: String, arguments: [String: Value]) async -> CallTool.Result {
        do {
            switch name {
            case "search_documents": return try await search(arguments)
            case "ask_documents": return try await ask(arguments)
            case "list_documents": return try await list(arguments)
            case "add_document": return try await add(arguments)
            case "recent_conversations": return try await recent(arguments)
            default: return failure("There is no tool named \(name); the tools are \(Self.all.map(\.name).joined(separator: ", ")).")
            }
        } catch let error as ToolInputError {
            return failure(error.message)
        } catch {
            return failure(ConversationEngine.describe(error))
        }
    }

    // MARK: Tools

    private func search(_ arguments: [String: Value]) async throws -> CallTool.Result {
        let query = try text("query", in: arguments)
        let limit = try integer("limit", in: arguments, default: 5, range: 1...50)
        let results = try await runtime.documents.search(query, collection: optionalText("collection", in: arguments), limit: limit)
        let passages = results.enumerated().map { Wire.Passage($0.element, rank: $0.offset + 1) }
        let shown = passages.isEmpty ? "No passage matches \"\(query)\"." : passages.map(Self.describe).joined(separator: "\n\n")
        return try CallTool.Result(content: [Self.words(shown)], structuredContent: PassageList(passages: passages))
    }

    private func ask(_ arguments: [String: Value]) async throws -> CallTool.Result {
        let question = try text("question", in: arguments)
        let request = AskRequest(
            question, conversation: .new(NewConversation(source: .mcp)),
            documents: DocumentScope(collection: optionalText("collection", in: arguments))
        )
        let result = try await runtime.conversations.ask(request)
        let answer: Wire.Answer
        switch result.outcome {
        case .declined(let declined):
            answer = Wire.Answer(declined: declined, conversationID: result.conversation.id)
        case .answering(let turn):
            var last: AssistantEvent?
            for await event in turn.events() {
                switch event {
                case .finished, .failed, .cancelled: last = event
                default: break
                }
            }
            answer = Wire.Answer(conversationID: result.conversation.id, ending: last)
        }
        var shown = answer.answer
        // The sources some sentence rests on (all of them while claims are unknown).
        let cited = Set(answer.claims?.flatMap(\.citations) ?? answer.citations.map(\.number))
        let sources = answer.citations.filter { cited.contains($0.number) }
        if !sources.isEmpty {
            shown += "\n\nSources:\n" + sources.map { "[\($0.number)] \($0.document)\($0.page.map { ", page \($0)" } ?? "")" }.joined(separator: "\n")
        }
        if let error = answer.error { shown = "The answer failed: \(error)" }
        return try CallTool.Result(content: [Self.words(shown)], structuredContent: answer, isError: answer.status == "failed" ? true : nil)
    }

    private func list(_ arguments: [String: Value]) async throws -> CallTool.Result {
        let listings = try await runtime.documents.list(in: optionalText("collection", in: arguments))
        let documents = listings.map { Wire.Document($0.document, collection: $0.collection) }
        let shown = documents.isEmpty ? "No documents yet." : documents.map { "\($0.id): \($0.title) (\($0.collection), \($0.passages) passages)" }.joined(separator: "\n")
        return try CallTool.Result(content: [Self.words(shown)], structuredContent: DocumentList(documents: documents))
    }

    private func add(_ arguments: [String: Value]) async throws -> CallTool.Result {
        let collection = optionalText("collection", in: arguments)
        let addition: DocumentAddition
        switch (optionalText("text", in: arguments), optionalText("path", in: arguments)) {
        case (let text?, nil):
            let title = optionalText("title", in: arguments) ?? "Note from an agent"
            let name = UploadedFile.safeName(title.hasSuffix(".md") ? title : title + ".md")
            // Markdown takes its title from its first heading: a text without one gets the title given.
            let markdown = text.hasPrefix("#") ? text : "# \(title)\n\n\(text)"
            addition = try await runtime.documents.addUploads([UploadedFile(filename: name, data: Data(markdown.utf8))], collection: collection)
        case (nil, let path?):
            addition = try await runtime.documents.add(try allowedFile(path), collection: collection)
        default:
            throw ToolInputError(message: "Give either text (with a title) or path, not both and not neither.")
        }
        let report = Wire.IngestReport(addition)
        if let failure = report.failed.first { throw ToolInputError(message: "The document could not be added: \(failure.error)") }
        if let duplicate = report.duplicates.first { throw ToolInputError(message: "This text is already in the collection, as \(duplicate.of).") }
        let changed = (report.added + report.updated).map(\.title)
        let shown = changed.isEmpty ? "Already in collection '\(report.collection)', unchanged."
            : "Added to collection '\(report.collection)': \(changed.joined(separator: ", ")) (\(report.passages) passages)."
        return try CallTool.Result(content: [Self.words(shown)], structuredContent: report)
    }

    private func recent(_ arguments: [String: Value]) async throws -> CallTool.Result {
        let limit = try integer("limit", in: arguments, default: 10, range: 1...100)
        let page = try await runtime.conversations.list(limit: limit)
        let conversations = page.items.map { Wire.Conversation($0) }
        let shown = conversations.isEmpty ? "No conversations yet."
            : conversations.map { "\($0.title ?? "Untitled") (\($0.source), \($0.updatedAt.formatted(.iso8601)))\($0.preview.map { ": \($0)" } ?? "")" }.joined(separator: "\n")
        return try CallTool.Result(content: [Self.words(shown)], structuredContent: ConversationList(conversations: conversations))
    }

    // MARK: Resources and prompts

    func documentResources() async throws -> [Resource] {
        try await runtime.documents.list().map { listing in
            Resource(
                name: listing.document.displayName, uri: Self.documentURIPrefix + String(listing.document.id),
                description: "\(listing.collection): \(listing.document.path)", mimeType: "text/plain"
            )
        }
    }

    func readDocument(_ uri: String) async throws -> Resource.Content {
        guard uri.hasPrefix(Self.documentURIPrefix), let id = Int64(uri.dropFirst(Self.documentURIPrefix.count)) else {
            throw MCPError.invalidParams("No such resource: \(uri); documents are \(Self.documentURIPrefix)ID.")
        }
        let details: DocumentDetails
        do {
            details = try await runtime.documents.details(id: id)
        } catch {
            throw MCPError.invalidParams("No document \(id): \(ConversationEngine.describe(error))")
        }
        return .text(details.passages.sorted { $0.ordinal < $1.ordinal }.map(\.text).joined(separator: "\n\n"), uri: uri, mimeType: "text/plain")
    }

    func personaPrompts() async throws -> [Prompt] {
        try await runtime.conversations.personas().map { persona in
            Prompt(
                name: persona.name, description: persona.summary ?? String(persona.systemPrompt.prefix(120)),
                arguments: [.init(name: "question", description: "What to ask in this persona's voice (optional).", required: false)]
            )
        }
    }

    func persona(_ name: String, arguments: [String: String]) async throws -> GetPrompt.Result {
        let persona: Persona
        do {
            persona = try await runtime.conversations.persona(named: name)
        } catch {
            throw MCPError.invalidParams(ConversationEngine.describe(error))
        }
        var messages: [Prompt.Message] = [.user(.text(text: persona.systemPrompt))]
        if let question = arguments["question"], !question.isEmpty { messages.append(.user(.text(text: question))) }
        return .init(description: persona.summary, messages: messages)
    }

    // MARK: Arguments

    private func failure(_ message: String) -> CallTool.Result {
        CallTool.Result(content: [Self.words(message)], isError: true)
    }

    /// Text content of a result.
    static func words(_ text: String) -> Tool.Content {
        .text(text: text, annotations: nil, _meta: nil)
    }

    private func text(_ name: String, in arguments: [String: Value]) throws -> String {
        guard let value = optionalText(name, in: arguments) else { throw ToolInputError(message: "\(name) is required (a non-empty string).") }
        return value
    }

    private func optionalText(_ name: String, in arguments: [String: Value]) -> String? {
        guard let value = arguments[name]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    private func integer(_ name: String, in arguments: [String: Value], default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let value = arguments[name], value != .null else { return fallback }
        guard let number = value.intValue ?? value.doubleValue.flatMap({ $0.rounded() == $0 ? Int($0) : nil }), range.contains(number) else {
            throw ToolInputError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// `path` as a file inside an allowed folder (links followed first, so none leads outside).
    private func allowedFile(_ path: String) throws -> [URL] {
        guard !options.allowedFolders.isEmpty else {
            throw ToolInputError(message: "This server reads no files: give the document as text, or start it with folders to allow (sibyl mcp --allow-folder DIR).")
        }
        let file = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        let inside = options.allowedFolders.contains { folder in
            let root = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
            return file.pathComponents.count > root.count && Array(file.pathComponents.prefix(root.count)) == root
        }
        guard inside else {
            throw ToolInputError(message: "\(path) is outside the folders this server may read (\(options.allowedFolders.map(\.path).joined(separator: ", "))).")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ToolInputError(message: "\(path) is not a file this server can read.")
        }
        return [file]
    }

    /// A passage in words: its rank, document, page and section, then its text.
    static func describe(_ passage: Wire.Passage) -> String {
        var place = "[\(passage.rank)] \(passage.document)"
        if let page = passage.page { place += ", page \(page)" }
        if !passage.section.isEmpty { place += ", " + passage.section.joined(separator: " › ") }
        return place + String(format: " (score %.3f)\n", passage.score) + passage.text
    }
}

/// A tool was called with arguments it cannot use.
struct ToolInputError: Error {
    var message: String
}

/// The structured results (`structuredContent`): objects, as MCP asks.
struct PassageList: Codable { var passages: [Wire.Passage] }
struct DocumentList: Codable { var documents: [Wire.Document] }
struct ConversationList: Codable { var conversations: [Wire.Conversation] }
