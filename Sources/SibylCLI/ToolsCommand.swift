import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylConfig
import SibylCore

/// `sibyl tools`: the MCP servers whose tools answers may call, and turning that on or off.
struct ToolsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tools",
        abstract: "Let answers call tools of your MCP servers (off until you turn it on).",
        discussion: """
        A server is a command Sibyl starts (stdio) or a URL (streamable HTTP). Calls are shown as \
        they are made and kept with the answer as sources it cites. Kept in tools.servers and tools.enabled.
        """,
        subcommands: [List.self, Add.self, Remove.self, On.self, Off.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the servers and the tools each offers now (each is reached to ask).")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let report = await runtime.admin.tools()
                if json {
                    Terminal.print(Format.json(report))
                    return
                }
                Terminal.print("Answers \(report.enabled ? Terminal.green("may use") : Terminal.yellow("do not use")) tools" + (report.enabled ? "." : " (turn on with `sibyl tools on`)."))
                if report.servers.isEmpty {
                    Terminal.print(Terminal.dim("No MCP servers yet: `sibyl tools add NAME -- COMMAND [ARGUMENTS…]` or `sibyl tools add NAME URL`."))
                    return
                }
                for server in report.servers {
                    Terminal.print("\n" + Terminal.bold(server.name) + " " + Terminal.dim("(\(server.kind)) \(server.target)"))
                    if let problem = server.problem {
                        Terminal.print("  " + Terminal.red("unreachable: ") + problem)
                    } else if server.tools.isEmpty {
                        Terminal.print(Terminal.dim("  offers no tools"))
                    }
                    for tool in server.tools {
                        Terminal.print("  \(tool.name) " + Terminal.dim("— \(Format.excerpt(tool.description, length: 100))"))
                    }
                }
                if report.servers.contains(where: { $0.problem != nil }) { throw ExitCode(1) }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an MCP server: a command Sibyl starts, or the URL of one that runs.",
            discussion: "Examples: sibyl tools add notes -- python3 /srv/notes_server.py    sibyl tools add search http://127.0.0.1:8000/mcp"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A name for it: letters, digits, - and _ (its tools are called NAME_TOOL).") var name: String
        @Argument(parsing: .captureForPassthrough, help: "The URL, or the command and its arguments (after --).") var target: [String]

        func run() async throws {
            let words = target.first == "--" ? Array(target.dropFirst()) : target
            guard ToolServerList.isName(name) else { throw ValidationError("A server's name has letters, digits, - and _ only (at most 32): \(name)") }
            guard let first = words.first else { throw ValidationError("Give the server's URL, or its command after --.") }
            let endpoint: ToolServer.Endpoint = words.count == 1 && (first.hasPrefix("http://") || first.hasPrefix("https://")) ? .url(first) : .command(words)
            try await global.withRuntime { runtime in
                var list = runtime.settings[.toolsServers]
                list.servers.removeAll { $0.name == name }
                list.servers.append(ToolServer(name: name, endpoint: endpoint))
                try await runtime.admin.set(.toolsServers, to: list)
                Terminal.print("Added \(name). `sibyl tools` lists what it offers" + (runtime.settings[.toolsEnabled] ? "." : "; `sibyl tools on` lets answers use it."))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an MCP server (a command Sibyl started is stopped).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The server's name.") var name: String

        func run() async throws {
            try await global.withRuntime { runtime in
                var list = runtime.settings[.toolsServers]
                guard list.servers.contains(where: { $0.name == name }) else {
                    throw ValidationError("There is no MCP server named \(name); `sibyl tools` lists them.")
                }
                list.servers.removeAll { $0.name == name }
                try await runtime.admin.set(.toolsServers, to: list)
                Terminal.print("Removed \(name).")
            }
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let answers call the servers' tools.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                try await runtime.admin.set(.toolsEnabled, to: true)
                Terminal.print("Answers may now call the tools of your MCP servers; each call is shown and cited.")
            }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Answer without tools.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                try await runtime.admin.set(.toolsEnabled, to: false)
                Terminal.print("Answers no longer call tools.")
            }
        }
    }
}
