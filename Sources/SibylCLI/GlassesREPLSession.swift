import Foundation

/// A connection to a pair of glasses' REPL and filesystem, whatever their kind.
///
/// `sibyl glasses` works through this alone: Monocle (MicroPython's raw REPL, `MonocleREPLSession`)
/// is the first kind; another (Frame's Lua REPL) plugs in by conforming.
protocol GlassesREPLSession: Sendable {
    /// The glasses' name in messages ("the virtual Monocle", "the Monocle AA:BB:…").
    var name: String { get }
    /// What the glasses print outside the session's own commands (the running program's output, the
    /// interactive REPL's echo and prompts), as it arrives.
    var serialOutput: AsyncStream<Data> { get }
    /// What happens to the link, in words ("… disconnected (the glasses restarted); connecting again…").
    var notices: AsyncStream<String> { get }

    /// Connects to the glasses.
    func connect() async throws
    /// Runs a program to its end and returns what it printed; an exception in it is thrown.
    func execute(_ code: String) async throws -> String
    /// Stops the running program (Ctrl-C).
    func interrupt() async throws
    /// Bytes typed at the interactive REPL, passed through as they are.
    func type(_ bytes: Data) async throws
    /// The files in a directory ("" for the top), names sorted.
    func listFiles(in directory: String) async throws -> [GlassesFile]
    /// Writes a file, replacing one with that name.
    func put(_ contents: Data, as path: String) async throws
    /// Reads a file.
    func get(_ path: String) async throws -> Data
    /// Deletes a file.
    func remove(_ path: String) async throws
    /// Restarts the program on the glasses (their `main.py` or equivalent) in the interactive REPL's mode.
    func softReset() async throws
    /// Disconnects.
    func close() async
}

/// One entry of the glasses' filesystem.
struct GlassesFile: Sendable, Hashable {
    var name: String
    var size: Int
    var isDirectory: Bool
}
