import Logging
import MCPToolbox
import SibylConfig
import SibylCore
import Synchronization

/// The toolbox of the MCP servers the settings name now: one per process, shared by every
/// account's answers, and made again (the old one's servers stopped) when `tools.servers` or
/// `tools.timeout` changes.
final class ToolboxCache: Sendable {
    private struct Entry: Sendable {
        var servers: ToolServerList
        var timeout: Int
        var toolbox: MCPToolbox
    }

    private let current = Mutex<Entry?>(nil)

    func toolbox(for servers: ToolServerList, timeout: Int, logger: Logger) -> MCPToolbox? {
        var retired: MCPToolbox?
        let toolbox = current.withLock { entry -> MCPToolbox? in
            if let entry, entry.servers == servers, entry.timeout == timeout { return entry.toolbox }
            retired = entry?.toolbox
            guard !servers.servers.isEmpty else {
                entry = nil
                return nil
            }
            let made = MCPToolbox(servers: servers.servers, ceiling: .seconds(max(1, timeout)), logger: logger)
            entry = Entry(servers: servers, timeout: timeout, toolbox: made)
            return made
        }
        if let retired { Task { await retired.shutdown() } }
        return toolbox
    }

    func shutdown() async {
        let toolbox = current.withLock { entry in
            defer { entry = nil }
            return entry?.toolbox
        }
        await toolbox?.shutdown()
    }
}

extension Providers {
    /// The tools answers may call: the MCP servers of `tools.servers`, when `tools.enabled` is on.
    func tools(_ settings: Settings) -> (any ToolProvider)? {
        settings[.toolsEnabled] ? toolbox(settings) : nil
    }

    /// The toolbox of `tools.servers`, whether or not answers may use it; nil when none is set.
    func toolbox(_ settings: Settings) -> MCPToolbox? {
        toolboxes.toolbox(for: settings[.toolsServers], timeout: settings[.toolsTimeout], logger: logger)
    }

    /// Stops the MCP servers Sibyl started.
    func stopTools() async {
        await toolboxes.shutdown()
    }
}
