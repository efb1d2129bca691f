public import Assistant
import MCPToolbox
import SibylConfig
import SibylCore

extension SibylRuntime.Admin {
    /// Whether answers may use tools, and each MCP server of `tools.servers` with the tools it
    /// offers now (each is reached to ask, started if it is a command), or why it offers none.
    public func tools() async -> Wire.ToolsReport {
        let settings = runtime.settings
        let servers = await runtime.providers.toolbox(settings)?.servers() ?? []
        return Wire.ToolsReport(enabled: settings[.toolsEnabled], servers: servers.map { report in
            let kind = if case .url = report.server.endpoint { "url" } else { "command" }
            return Wire.ToolServer(
                name: report.server.name, kind: kind, target: report.server.target,
                tools: report.tools.map { Wire.ToolServer.Tool(name: $0.toolName, calledAs: $0.tool.name, description: $0.tool.description) },
                problem: report.problem
            )
        })
    }
}
