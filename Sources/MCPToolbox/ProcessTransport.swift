import Foundation
import Logging
import MCP
import Synchronization

/// MCP's stdio transport over a server process Sibyl started: one JSON-RPC message a line on the
/// process's standard input and output.
///
/// Its output and its standard error are read on threads of their own with blocking reads, which
/// end when the process closes them: no descriptor is closed while something still reads it, and
/// nothing polls while the server is idle. (The SDK's stdio transport polls every 10 ms, and a
/// Foundation readability handler on a pipe closed too early crashed Sibyl at exit.)
actor ProcessTransport: Transport {
    nonisolated let logger: Logger
    private let input: FileHandle
    private let messages: AsyncThrowingStream<Data, any Error>
    private var closed = false

    /// Starts reading `output` and `errors` of a process already running, whose standard input is `input`.
    init(input: FileHandle, output: FileHandle, errors: StandardErrorTail, stderr: FileHandle, logger: Logger) {
        self.input = input
        self.logger = logger
        let (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        self.messages = messages
        Self.read(output) { line in continuation.yield(line) } ended: { continuation.finish() }
        errors.follow(stderr)
    }

    func connect() async throws {}

    /// Closes the server's input, which asks a stdio server to exit.
    func disconnect() async {
        guard !closed else { return }
        closed = true
        try? input.close()
    }

    func send(_ data: Data) async throws {
        guard !closed else { throw MCPError.internalError("the connection to the server is closed") }
        do {
            try input.write(contentsOf: data + Data([UInt8(ascii: "\n")]))
        } catch {
            throw MCPError.internalError("the server's input is closed: \(error.localizedDescription)")
        }
    }

    nonisolated func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    /// Reads `handle` line by line on a thread of its own until the other end closes it.
    private static func read(_ handle: FileHandle, line: @escaping @Sendable (Data) -> Void, ended: @escaping @Sendable () -> Void) {
        let thread = Thread {
            var pending = Data()
            while true {
                let piece = handle.availableData
                if piece.isEmpty { break }
                pending.append(piece)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let message = pending[pending.startIndex..<newline]
                    pending = Data(pending[pending.index(after: newline)...])
                    if !message.isEmpty { line(Data(message)) }
                }
            }
            ended()
        }
        thread.name = "sibyl.mcp-stdio"
        thread.start()
    }
}

/// The last few hundred characters a server wrote to its standard error, to say why it stopped;
/// read on a thread of its own until the server closes it.
final class StandardErrorTail: Sendable {
    private struct State {
        var text = ""
        var ended = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func follow(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                let piece = String(decoding: data, as: UTF8.self)
                state.withLock { state in
                    state.text = String((state.text + piece).suffix(600))
                }
            }
            let waiting = state.withLock { state in
                state.ended = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume() }
        }
        thread.name = "sibyl.mcp-stderr"
        thread.start()
    }

    /// Waits until the server's standard error has closed (it has exited, so it closes at once).
    func ended() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.ended { state.waiting.append(continuation) }
                return state.ended
            }
            if done { continuation.resume() }
        }
    }

    var text: String {
        state.withLock { $0.text }.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
