import Foundation
import Glasses

/// A connection to a pair of glasses' REPL and filesystem, in the dialect of their kind: what
/// `sibyl glasses repl | exec | files` work through, over any transport (Bluetooth, an emulator).
///
/// - MicroPython (Monocle): the REPL echoes and edits; commands and file transfers use the raw REPL,
///   as mpremote does, and what the glasses print meanwhile is not passed on, everything else is.
/// - Lua (Frame): the REPL echoes nothing and has no prompt; each write is one Lua chunk and `print`
///   is the only way back, so every command ends with a `print` of a marker of its own, and longer
///   code is written to a file on the flash and `require`d.
actor GlassesREPLSession {
    /// How the glasses' REPL speaks.
    enum Dialect: Sendable {
        /// Monocle's MicroPython REPL: friendly and raw modes, on the serial channel.
        case microPython
        /// Frame's Lua REPL: one chunk per write, on Frame's channel.
        case lua
    }

    /// The glasses' name in messages ("the virtual Monocle", "the Frame AA:BB:…").
    nonisolated let name: String
    nonisolated let dialect: Dialect
    /// What the glasses print outside the session's own commands (the running program's output, the
    /// interactive REPL's echo and prompts), as it arrives. On Lua, an empty piece ends each typed line's output.
    nonisolated let serialOutput: AsyncStream<Data>
    let output: AsyncStream<Data>.Continuation
    /// What happens to the link, in words ("… disconnected (the glasses restarted); connecting again…").
    nonisolated let notices: AsyncStream<String>
    private let notice: AsyncStream<String>.Continuation
    let transport: any GlassesTransport
    let replyTimeout: Duration
    /// The pause after a break or reset, for Frame's firmware to act on it (FrameMsg waits 200 ms).
    let signalPause: Duration
    private var reader: Task<Void, Never>?
    /// The link's write length while connected.
    var writeLength: Int?
    var lostReason: String?
    var closing = false
    var reconnecting: Task<Void, Never>?
    /// Waits for something to change (a notification, the link).
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var waiterCount = 0
    var python = MicroPythonState()
    var lua = LuaState()

    init(dialect: Dialect, transport: any GlassesTransport, name: String, replyTimeout: Duration = .seconds(30), signalPause: Duration = .milliseconds(200)) {
        self.dialect = dialect
        self.transport = transport
        self.name = name
        self.replyTimeout = replyTimeout
        self.signalPause = signalPause
        (serialOutput, output) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (notices, notice) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var isConnected: Bool { writeLength != nil }

    /// Connects to the glasses (on Frame, then stops whatever runs, as frame-msg does: break, reset, break).
    func connect() async throws {
        let events = transport.events
        reader = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        try await transport.connect()
        try await wait(for: "the connection") { isConnected }
        if dialect == .lua { try await luaConnected() }
    }

    private func handle(_ event: GlassesTransportEvent) {
        defer { changed() }
        switch event {
        case .connected(let length):
            if lostReason != nil { notice.yield("connected to \(name) again") }
            writeLength = length
            lostReason = nil
            // A restarted device is in the friendly REPL, whatever the session had it in.
            python.inRawMode = false
        case .received(let channel, let bytes):
            switch (dialect, channel) {
            case (.microPython, .serial): pythonReceived(bytes)
            case (.lua, .frame): luaReceived(bytes)
            default: break
            }
        case .disconnected(let reason):
            writeLength = nil
            lostReason = reason
            guard !closing else { return }
            notice.yield("\(name) disconnected (\(reason)); connecting again…")
            if reconnecting == nil { reconnecting = Task { await self.reconnect() } }
        }
    }

    /// Tries to connect again for a while (the glasses restart after a reset or an update, Frame sleeps).
    private func reconnect() async {
        defer { reconnecting = nil }
        var attempts = 0
        while !closing && !isConnected && attempts < 60 {
            attempts += 1
            try? await Task.sleep(for: .milliseconds(500))
            if closing || isConnected { return }
            try? await transport.connect()
        }
        if !isConnected && !closing {
            notice.yield("\(name) did not come back; leave\(dialect == .microPython ? " with Ctrl-]" : "") and connect again")
        }
    }

    /// Disconnects.
    func close() async {
        closing = true
        reconnecting?.cancel()
        await transport.disconnect()
        reader?.cancel()
        if dialect == .lua { flushPrints() }
        output.finish()
        notice.finish()
    }

    // MARK: What the dialects share

    /// Bytes typed at the interactive REPL: MicroPython's are passed through as they are; Lua's go
    /// line by line, each line one chunk, Ctrl-C a break.
    func type(_ bytes: Data) async throws {
        switch dialect {
        case .microPython: try await pythonType(bytes)
        case .lua: try await luaType(bytes)
        }
    }

    /// Stops the running program (Ctrl-C; Frame's break).
    func interrupt() async throws {
        switch dialect {
        case .microPython: try await transport.write(Data([0x03]), to: .serial)
        case .lua: try await luaInterrupt()
        }
    }

    /// Restarts the program on the glasses (`main.py`, `main.lua`) in the interactive REPL's mode.
    func softReset() async throws {
        switch dialect {
        case .microPython: try await pythonSoftReset()
        case .lua: try await luaSoftReset()
        }
    }

    /// Runs a program to its end and returns what it printed; an exception in it is thrown.
    func execute(_ code: String) async throws -> String {
        switch dialect {
        case .microPython: try await pythonExecute(code)
        case .lua: try await luaExecute(code)
        }
    }

    /// The files in a directory ("" for the top), names sorted.
    func listFiles(in directory: String) async throws -> [GlassesFile] {
        switch dialect {
        case .microPython: try await pythonListFiles(in: directory)
        case .lua: try await luaListFiles(in: directory)
        }
    }

    /// Writes a file, replacing one with that name.
    func put(_ contents: Data, as path: String) async throws {
        switch dialect {
        case .microPython: try await pythonPut(contents, as: path)
        case .lua: try await luaPut(contents, as: path)
        }
    }

    /// Reads a file.
    func get(_ path: String) async throws -> Data {
        switch dialect {
        case .microPython: try await pythonGet(path)
        case .lua: try await luaGet(path)
        }
    }

    /// Deletes a file.
    func remove(_ path: String) async throws {
        switch dialect {
        case .microPython: try await pythonRemove(path)
        case .lua: try await luaRemove(path)
        }
    }

    // MARK: Waiting

    /// Waits until `condition` holds, checking it whenever something arrives (and every `tick`, for
    /// conditions on time); a lost link (unless `throughALostLink` while reconnecting) or the
    /// timeout (a ceiling against a hang; nil: none) ends it.
    func wait(
        for what: String, throughALostLink: Bool = false, timeout: Duration? = nil, limited: Bool = true, tick: Duration = .milliseconds(50),
        _ condition: () -> Bool
    ) async throws {
        let limit = timeout ?? (throughALostLink ? .seconds(60) : replyTimeout)
        let deadline = ContinuousClock.now + limit
        while !condition() {
            if let lostReason, !throughALostLink || reconnecting == nil {
                throw CLIError("\(name) disconnected (\(lostReason)).", hint: "Bring the glasses closer, or check they are charged, and try again.")
            }
            guard !limited || ContinuousClock.now < deadline else {
                throw CLIError("\(name) did not answer within \(limit) (waiting for \(what)).", hint: dialect.stuckHint)
            }
            await nextChange(orAfter: tick)
        }
    }

    /// Returns when something changes, or after `interval`.
    private func nextChange(orAfter interval: Duration) async {
        waiterCount += 1
        let id = waiterCount
        await withCheckedContinuation { continuation in
            waiters[id] = continuation
            Task {
                try? await Task.sleep(for: interval)
                self.wake(id)
            }
        }
    }

    private func wake(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    /// Wakes every wait, to check its condition again.
    func changed() {
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }
}

extension GlassesREPLSession.Dialect {
    /// What to try when the glasses do not answer.
    var stuckHint: String {
        switch self {
        case .microPython: "A program that ignores Ctrl-C may hold the REPL: reset the glasses and try again."
        case .lua: "An app that runs holds Frame's REPL: send a break (Ctrl-C in the REPL) or reset the glasses, and try again."
        }
    }
}

/// One entry of the glasses' filesystem.
struct GlassesFile: Sendable, Hashable {
    var name: String
    var size: Int
    var isDirectory: Bool
}
