import Assistant
public import Foundation
import Knowledge
public import MCP
public import SibylApp
import SibylCore

/// Sibyl's knowledge as tools for other agents, over the Model Context Protocol: one account's
/// documents to search, ask and add to, its recent conversations, each document's text as a
/// resource and its personas as prompts. `sibyl mcp` serves it on stdio; `sibyl serve` at `/mcp`
/// (streamable HTTP), each account seeing only its own.
public enum SibylMCP {
    /// What the server may do beyond reading.
    public struct Options: Sendable {
        /// Folders whose files `add_document` may read (with their subfolders); none: it takes text only.
        public var allowedFolders: [URL] = []

        public init(allowedFolders: [URL] = []) {
            self.allowedFolders = allowedFolders
        }
    }

    /// The name and version clients see.
    public static let name = "sibyl"
    public static let version = "0.1.0"

    /// A server over `runtime` (one account's), with every handler registered; start it on a transport.
    public static func server(runtime: SibylRuntime, options: Options = Options()) async -> Server {
        let server = Server(
            name: name, version: version,
            instructions: "Sibyl holds the user's documents: search_documents finds passages, ask_documents answers from them with citations (or says they do not answer), list_documents and add_document manage them, recent_conversations shows what the user asked lately.",
            capabilities: .init(prompts: .init(listChanged: false), resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false))
        )
        let tools = SibylTools(runtime: runtime, options: options)
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: SibylTools.all) }
        await server.withMethodHandler(CallTool.self) { params in await tools.call(params.name, arguments: params.arguments ?? [:]) }
        await server.withMethodHandler(ListResources.self) { _ in .init(resources: try await tools.documentResources()) }
        await server.withMethodHandler(ReadResource.self) { params in .init(contents: [try await tools.readDocument(params.uri)]) }
        await server.withMethodHandler(ListPrompts.self) { _ in .init(prompts: try await tools.personaPrompts()) }
        await server.withMethodHandler(GetPrompt.self) { params in try await tools.persona(params.name, arguments: params.arguments ?? [:]) }
        return server
    }
}
