import ArgumentParser
import Foundation
import MCP
import SibylApp
import SibylMCP

/// `sibyl mcp`: Sibyl's knowledge as tools for a desktop agent, over the Model Context Protocol on stdio.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve your documents to another agent over the Model Context Protocol (stdio).",
        discussion: """
        An agent (Claude Desktop, an IDE, any MCP client) starts `sibyl mcp` and talks to it on stdin and \
        stdout. Tools: search_documents (ranked passages with document, page, section and score), \
        ask_documents (a grounded answer with its citations, or the plain statement that the documents do not \
        answer), list_documents, add_document (text, or a file inside an --allow-folder), recent_conversations. \
        Resources: each document's text (sibyl://documents/ID). Prompts: your personas. The same server runs \
        at /mcp on `sibyl serve` (streamable HTTP, with the account's API token). Example client settings:
          {"mcpServers": {"sibyl": {"command": "sibyl", "args": ["mcp", "--allow-folder", "/home/me/Papers"]}}}
        """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("allow-folder"), help: ArgumentHelp("A folder whose files add_document may read (repeat for more); without one it takes text only.", valueName: "DIR"))
    var allowedFolders: [String] = []

    func validate() throws {
        for folder in allowedFolders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--allow-folder \(folder) is not a folder.")
            }
        }
    }

    func run() async throws {
        try await global.withRuntime { runtime in
            let options = SibylMCP.Options(allowedFolders: allowedFolders.map { URL(fileURLWithPath: $0, isDirectory: true) })
            let server = await SibylMCP.server(runtime: runtime, options: options)
            // stdout carries the protocol alone: Sibyl's own words go to stderr.
            try await server.start(transport: StdioTransport())
            await server.waitUntilCompleted()
        }
    }
}
