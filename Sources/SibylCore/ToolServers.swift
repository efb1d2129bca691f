import Foundation

/// An MCP server whose tools answers may use: a command Sibyl starts (stdio), or a URL
/// (streamable HTTP).
public struct ToolServer: Sendable, Hashable {
    public enum Endpoint: Sendable, Hashable {
        /// The program and its arguments.
        case command([String])
        case url(String)
    }

    /// The name the user gave it: shown with every call, and the prefix of its tools' names.
    public var name: String
    public var endpoint: Endpoint

    public init(name: String, endpoint: Endpoint) {
        self.name = name
        self.endpoint = endpoint
    }

    /// The command line (quoted where a word needs it) or the URL, as the setting writes it.
    public var target: String {
        switch endpoint {
        case .url(let url): url
        case .command(let words):
            words.map { word in
                word.isEmpty || word.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == ";" || $0 == "\\" })
                    ? "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" : word
            }.joined(separator: " ")
        }
    }
}

/// The MCP servers a user configured, as the `tools.servers` setting writes them:
/// `NAME=COMMAND ARGUMENTS` or `NAME=URL`, separated by `;`. An argument with spaces is written
/// in double quotes. Example: `notes=python3 /srv/notes.py; weather=http://127.0.0.1:8000/mcp`.
public struct ToolServerList: Sendable, Hashable, CustomStringConvertible {
    public var servers: [ToolServer]

    public init(_ servers: [ToolServer] = []) {
        self.servers = servers
    }

    /// Reads the setting's text; nil when an entry has no name, a bad name, or names a server twice.
    public init?(_ text: String) {
        var servers: [ToolServer] = []
        for entry in Self.entries(of: text) {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            let target = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard Self.isName(name), !target.isEmpty, !servers.contains(where: { $0.name == name }) else { return nil }
            if target.hasPrefix("http://") || target.hasPrefix("https://") {
                servers.append(ToolServer(name: name, endpoint: .url(target)))
            } else {
                guard let words = Self.words(of: target), !words.isEmpty else { return nil }
                servers.append(ToolServer(name: name, endpoint: .command(words)))
            }
        }
        self.servers = servers
    }

    /// Letters, digits, `-` and `_`, at most 32: a name that fits into a tool's name for the model.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32 && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
    }

    /// The text split at each `;` outside double quotes.
    static func entries(of text: String) -> [String] {
        var entries: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                entries.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        entries.append(current)
        return entries
    }

    /// A command line split into words; double quotes keep spaces (and `\"` a quote). Nil when a quote is left open.
    static func words(of line: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                started = true
            } else if character.isWhitespace && !quoted {
                if started || !current.isEmpty { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
            }
        }
        guard !quoted else { return nil }
        if started || !current.isEmpty { words.append(current) }
        return words
    }

    /// The setting's text for these servers.
    public var description: String {
        servers.map { "\($0.name)=\($0.target)" }.joined(separator: "; ")
    }
}
