import Foundation
import Logging
import MCP
import SibylCore
import Synchronization

/// MCP's stdio transport over a server process Sibyl started: one JSON-RPC message a line on the
/// process's standard input and output.
///
/// Its output and its standard error are read by `PipeDrain` (blocking reads on threads of their
/// own, until the process closes them): nothing polls while the server is idle. (The SDK's stdio
/// transport polls every 10 ms, and a Foundation readability handler crashed Sibyl at exit.)
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
        let lines = LineSplitter()
        PipeDrain.start(output, name: "sibyl.mcp-stdio", chunk: { piece in
            for line in lines.add(piece) { continuation.yield(line) }
        }, ended: { continuation.finish() })
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
}

/// Splits what a pipe gives into lines (without their newlines; empty lines are dropped).
private final class LineSplitter: Sendable {
    private let pending = Mutex(Data())

    func add(_ piece: Data) -> [Data] {
        pending.withLock { pending in
            pending.append(piece)
            var lines: [Data] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                if !line.isEmpty { lines.append(Data(line)) }
                pending = Data(pending[pending.index(after: newline)...])
            }
            return lines
        }
    }
}

/// The last few hundred characters a server wrote to its standard error, to say why it stopped;
/// read until the server closes it.
final class StandardErrorTail: Sendable {
    private struct State {
        var text = ""
        var ended = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func follow(_ handle: FileHandle) {
        PipeDrain.start(handle, name: "sibyl.mcp-stderr", chunk: { [self] data in
            let piece = String(decoding: data, as: UTF8.self)
            state.withLock { state in
                state.text = String((state.text + piece).suffix(600))
            }
        }, ended: { [self] in
            let waiting = state.withLock { state in
                state.ended = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume() }
        })
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
