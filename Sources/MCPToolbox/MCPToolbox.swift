public import Foundation
public import Logging
import MCP
public import SibylCore

/// The MCP servers a user configured (`tools.servers`), as tools answers may call.
///
/// A command is started on first use and kept running for later answers (started again if it
/// has exited); a URL is reached over streamable HTTP. Each answer asks every server for its tools
/// again, so a server's new tools are offered at once. A server that cannot be reached offers no
/// tools, and the log says why (with what it wrote to its standard error). A call has a ceiling:
/// past it, the server's connection is closed and the call reported as failed.
public actor MCPToolbox: ToolProvider {
    private let servers: [ToolServer]
    private let ceiling: Duration
    private let logger: Logger
    private var connections: [String: Task<ServerConnection, any Error>] = [:]
    /// The name each tool was last offered under → its server and its own name.
    private var routes: [String: (server: ToolServer, tool: String)] = [:]

    public init(servers: [ToolServer], ceiling: Duration = .seconds(60), logger: Logger = Logger(label: "sibyl.tools")) {
        self.servers = servers
        self.ceiling = ceiling
        self.logger = logger
    }

    public func tools() async -> [OfferedTool] {
        await servers().flatMap(\.tools)
    }

    /// Every server with the tools it offers now, or why it offers none.
    public func servers() async -> [ServerTools] {
        var report: [ServerTools] = []
        var routes: [String: (server: ToolServer, tool: String)] = [:]
        for server in servers {
            do {
                let connection = try await connection(to: server)
                let tools = try await within(server, "listing its tools") { try await connection.listTools() }
                var offered: [OfferedTool] = []
                for tool in tools {
                    let name = Self.modelName(server: server.name, tool: tool.name, taken: Set(routes.keys))
                    routes[name] = (server, tool.name)
                    let description = [tool.title, tool.description].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
                    offered.append(OfferedTool(
                        tool: ChatTool(name: name, description: description.isEmpty ? tool.name : description, parameters: Self.jsonValue(tool.inputSchema)),
                        server: server.name, toolName: tool.name
                    ))
                }
                report.append(ServerTools(server: server, tools: offered, problem: nil))
            } catch {
                let problem = Self.describe(error)
                logger.warning("the tools of \(server.name) are left out: \(problem)")
                await close(server.name)
                report.append(ServerTools(server: server, tools: [], problem: problem))
            }
        }
        self.routes = routes
        return report
    }

    public func call(_ name: String, arguments: String) async throws -> ToolResult {
        guard let route = routes[name] else { return ToolResult(text: "There is no tool named \(name).", isError: true) }
        let trimmed = arguments.trimmingCharacters(in: .whitespacesAndNewlines)
        let values: [String: Value]
        do {
            values = trimmed.isEmpty ? [:] : try JSONDecoder().decode([String: Value].self, from: Data(trimmed.utf8))
        } catch {
            return ToolResult(text: "The arguments are not a JSON object: \(trimmed.prefix(200))", isError: true)
        }
        let connection = try await connection(to: route.server)
        let (content, isError) = try await within(route.server, "calling \(route.tool)") {
            try await connection.client.callTool(name: route.tool, arguments: values)
        }
        return ToolResult(text: Self.text(of: content), isError: isError ?? false)
    }

    /// Closes every connection and stops every server Sibyl started.
    public func shutdown() async {
        for name in connections.keys { await close(name) }
    }

    // MARK: Connections

    private func connection(to server: ToolServer) async throws -> ServerConnection {
        if let existing = connections[server.name] {
            if let connection = try? await existing.value, connection.isAlive { return connection }
            await close(server.name)
        }
        let logger = logger
        let ceiling = ceiling
        let task = Task { try await ServerConnection.open(server, ceiling: ceiling, logger: logger) }
        connections[server.name] = task
        do {
            return try await task.value
        } catch {
            if connections[server.name] == task { connections[server.name] = nil }
            throw error
        }
    }

    private func close(_ name: String) async {
        guard let task = connections.removeValue(forKey: name) else { return }
        task.cancel()
        if let connection = try? await task.value { await connection.close() }
    }

    /// Runs `body` against `server` with the ceiling; past it the connection is closed, which ends
    /// the request under way, and the error says what took too long.
    private func within<T: Sendable>(_ server: ToolServer, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let connection = connections[server.name]
        return try await Self.withCeiling(ceiling, server: server.name, what: what, expire: {
            if let connection = try? await connection?.value { await connection.close() }
        }, body)
    }

    /// Runs `body`; past `ceiling`, `expire` ends it (by closing what it waits on) and the error
    /// says what took too long.
    static func withCeiling<T: Sendable>(
        _ ceiling: Duration, server: String, what: String, expire: @escaping @Sendable () async -> Void, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: ceiling)
                await expire()
                throw ToolboxError.tookTooLong(server: server, what: what, seconds: Int(ceiling.components.seconds))
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    // MARK: Translation

    /// The name a tool is offered to the model under: the server's name and the tool's, joined
    /// with `_`, in the characters tool names may have, at most 64, unique among those offered.
    static func modelName(server: String, tool: String, taken: Set<String>) -> String {
        let allowed = "\(server)_\(tool)".map { character -> Character in
            (character.isASCII && (character.isLetter || character.isNumber)) || character == "_" || character == "-" ? character : "_"
        }
        let base = String(allowed.prefix(64))
        var name = base
        var number = 2
        while taken.contains(name) {
            let suffix = "_\(number)"
            name = String(base.prefix(64 - suffix.count)) + suffix
            number += 1
        }
        return name
    }

    static func jsonValue(_ value: Value) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return .object(["type": .string("object")])
        }
        return json
    }

    /// A tool's answer as text: its text parts, and a word for what is not text.
    static func text(of content: [Tool.Content]) -> String {
        content.map { part in
            switch part {
            case .text(let text, _, _): text
            case .image(_, let mimeType, _, _): "[an image (\(mimeType))]"
            case .audio(_, let mimeType, _, _): "[a recording (\(mimeType))]"
            case .resource(let resource, _, _): resource.text ?? "[\(resource.uri)]"
            case .resourceLink(let uri, let name, let title, let description, _, _):
                "[\(title ?? name)](\(uri))" + (description.map { ": \($0)" } ?? "")
            }
        }.joined(separator: "\n")
    }

    /// An error in words (MCP's errors are LocalizedError too).
    static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }
}

/// A server and what it offers now: its tools, or why it offers none.
public struct ServerTools: Sendable {
    public var server: ToolServer
    public var tools: [OfferedTool]
    public var problem: String?
}

/// What went wrong reaching a tool server, in words.
public enum ToolboxError: Error, LocalizedError, Sendable {
    case tookTooLong(server: String, what: String, seconds: Int)
    case couldNotStart(server: String, reason: String)
    case exited(server: String, said: String)

    public var errorDescription: String? {
        switch self {
        case .tookTooLong(let server, let what, let seconds):
            "the MCP server \(server) took longer than \(seconds) s \(what) (tools.timeout)"
        case .couldNotStart(let server, let reason):
            "the MCP server \(server) could not be started: \(reason)"
        case .exited(let server, let said):
            "the MCP server \(server) stopped" + (said.isEmpty ? "" : "; it said: \(said)")
        }
    }
}

/// One server's connection: its MCP client and, for a command, the process Sibyl started.
final class ServerConnection: @unchecked Sendable {  // Process and Pipe are used as Foundation allows across threads.
    let client: Client
    private let process: Process?
    private let errors: StandardErrorTail

    private init(client: Client, process: Process?, errors: StandardErrorTail) {
        self.client = client
        self.process = process
        self.errors = errors
    }

    var isAlive: Bool { process?.isRunning ?? true }

    static func open(_ server: ToolServer, ceiling: Duration, logger: Logger) async throws -> ServerConnection {
        let client = Client(name: "sibyl", version: "1.0")
        switch server.endpoint {
        case .url(let text):
            guard let url = URL(string: text) else { throw ToolboxError.couldNotStart(server: server.name, reason: "\(text) is not a URL") }
            let connection = ServerConnection(client: client, process: nil, errors: StandardErrorTail())
            try await connection.initialize(server, transport: StreamableHTTPTransport(endpoint: url, logger: logger), ceiling: ceiling)
            return connection
        case .command(let words):
            let process = Process()
            // `env` finds the program on PATH and takes leading NAME=VALUE words as its environment.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = words
            process.environment = Self.childEnvironment(ProcessInfo.processInfo.environment)
            let input = Pipe(), output = Pipe(), errorOutput = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errorOutput
            // A server that exits ends what is waiting for it (starting, a call) at once, not at the ceiling.
            process.terminationHandler = { _ in Task { await client.disconnect() } }
            do {
                try process.run()
            } catch {
                throw ToolboxError.couldNotStart(server: server.name, reason: error.localizedDescription)
            }
            // Only the process keeps its ends of the pipes.
            try? input.fileHandleForReading.close()
            try? output.fileHandleForWriting.close()
            try? errorOutput.fileHandleForWriting.close()
            let errors = StandardErrorTail()
            let transport = ProcessTransport(
                input: input.fileHandleForWriting, output: output.fileHandleForReading, errors: errors,
                stderr: errorOutput.fileHandleForReading, logger: logger
            )
            let connection = ServerConnection(client: client, process: process, errors: errors)
            do {
                try await connection.initialize(server, transport: transport, ceiling: ceiling)
            } catch {
                await connection.close()
                if !process.isRunning {
                    await errors.ended()
                    throw ToolboxError.exited(server: server.name, said: errors.text)
                }
                throw error
            }
            return connection
        }
    }

    /// What a server Sibyl starts inherits: where programs are, who and where the user is, the
    /// language. Nothing else: Sibyl's own settings and keys (OPENAI_API_KEY and the like) are not
    /// a tool's business. A server that needs a variable is given it in its command line
    /// (`NAME=VALUE program …`).
    static let inherited: Set<String> = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "SHELL", "XDG_RUNTIME_DIR"]

    static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { inherited.contains($0.key) }
    }

    private func initialize(_ server: ToolServer, transport: any Transport, ceiling: Duration) async throws {
        let client = client
        try await MCPToolbox.withCeiling(ceiling, server: server.name, what: "starting", expire: { await client.disconnect() }) {
            _ = try await client.connect(transport: transport)
        }
    }

    func listTools() async throws -> [Tool] {
        var tools: [Tool] = []
        var cursor: String?
        repeat {
            let page = try await client.listTools(cursor: cursor)
            tools += page.tools
            cursor = page.nextCursor
        } while cursor != nil && tools.count < 1_000
        return tools
    }

    /// Disconnects; a server Sibyl started is asked to stop (its input closed, then SIGTERM) and
    /// killed if it does not within two seconds.
    func close() async {
        await client.disconnect()
        guard let process, process.isRunning else { return }
        process.terminate()
        if await !waitForWork(until: .now + .seconds(2), { await process.exited() }) { kill(process.processIdentifier, SIGKILL) }
    }
}

