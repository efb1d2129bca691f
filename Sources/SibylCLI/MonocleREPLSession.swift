import Foundation
import Monocle

/// Monocle glasses through MicroPython's REPL on their serial channel: any `MonocleTransport`
/// (Bluetooth, the emulator). Commands and file transfers use the raw REPL, as mpremote does;
/// what the glasses print meanwhile is not passed on, everything else is.
actor MonocleREPLSession: GlassesREPLSession {
    nonisolated let name: String
    nonisolated let serialOutput: AsyncStream<Data>
    private let output: AsyncStream<Data>.Continuation
    nonisolated let notices: AsyncStream<String>
    private let notice: AsyncStream<String>.Continuation
    private let transport: any MonocleTransport
    private let replyTimeout: Duration
    private var reader: Task<Void, Never>?
    private var connected = false
    private var lostReason: String?
    /// Serial bytes received since the session's own command started.
    private var received: [UInt8] = []
    private var lastReceived = ContinuousClock.now
    /// While the session runs its own commands, the REPL's replies are not serial output.
    private var commanding = false
    private var inRawMode = false
    private var closing = false
    private var reconnecting: Task<Void, Never>?

    /// The largest file piece one command carries (base64 makes it 4/3 longer).
    static let pieceSize = 384

    init(transport: any MonocleTransport, name: String, replyTimeout: Duration = .seconds(30)) {
        self.transport = transport
        self.name = name
        self.replyTimeout = replyTimeout
        (serialOutput, output) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (notices, notice) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func connect() async throws {
        let events = transport.events
        reader = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        try await transport.connect()
        try await wait(for: "the connection") { connected }
    }

    private func handle(_ event: TransportEvent) {
        switch event {
        case .connected:
            if lostReason != nil { notice.yield("connected to \(name) again") }
            connected = true
            lostReason = nil
            // A restarted device is in the friendly REPL, whatever the session had it in.
            inRawMode = false
        case .received(.serial, let bytes):
            received.append(contentsOf: bytes)
            lastReceived = .now
            if !commanding { output.yield(bytes) }
        case .received(.data, _):
            break
        case .disconnected(let reason):
            connected = false
            lostReason = reason
            guard !closing else { return }
            notice.yield("\(name) disconnected (\(reason)); connecting again…")
            if reconnecting == nil { reconnecting = Task { await self.reconnect() } }
        }
    }

    /// Tries to connect again for a while (the glasses restart after `device.reset()` or an update).
    private func reconnect() async {
        defer { reconnecting = nil }
        var attempts = 0
        while !closing && !connected && attempts < 60 {
            attempts += 1
            try? await Task.sleep(for: .milliseconds(500))
            if closing || connected { return }
            try? await transport.connect()
        }
        if !connected && !closing { notice.yield("\(name) did not come back; leave with Ctrl-] and connect again") }
    }

    func close() async {
        closing = true
        reconnecting?.cancel()
        await transport.disconnect()
        reader?.cancel()
        output.finish()
        notice.finish()
    }

    // MARK: The interactive REPL

    func type(_ bytes: Data) async throws {
        // Keys typed while the glasses reconnect wait for them.
        if !connected { try await wait(for: "the glasses to come back", throughALostLink: true) { connected } }
        try await transport.write(bytes, to: .serial)
    }

    func interrupt() async throws {
        try await transport.write(Data([0x03]), to: .serial)
    }

    /// Back to the friendly REPL (Ctrl-B), then a soft reset (Ctrl-D on an empty line): the app starts
    /// again, and what it prints is serial output.
    func softReset() async throws {
        commanding = false
        inRawMode = false
        try await transport.write(Data([0x02, 0x04]), to: .serial)
    }

    // MARK: Commands

    func execute(_ code: String) async throws -> String {
        let reply = try await run(code)
        guard reply.succeeded else {
            throw CLIError("The code raised an exception on \(name):\n" + reply.error.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return reply.output
    }

    /// Interrupts what runs and enters the raw REPL; a banner may come twice (the firmware answers
    /// ^A after the interrupted program ends), so the session waits for the line to fall quiet.
    private func enterRawREPL() async throws {
        commanding = true
        received = []
        try await transport.write(Data(RawREPL.enter), to: .serial)
        try await wait(for: "the raw REPL") { RawREPL.containsBanner(received) }
        try await wait(for: "the raw REPL to settle") { ContinuousClock.now - lastReceived > .milliseconds(200) }
        inRawMode = true
    }

    private func run(_ code: String) async throws -> RawREPL.Reply {
        if !connected { try await wait(for: "the glasses to come back", throughALostLink: true) { connected } }
        if !inRawMode { try await enterRawREPL() }
        commanding = true
        received = []
        try await transport.write(RawREPL.command(code), to: .serial)
        var reply: RawREPL.Reply?
        try await wait(for: "a reply to `\(code.prefix(40))`") {
            reply = RawREPL.reply(in: received)
            return reply != nil
        }
        return reply!
    }

    /// Polls `condition` until it holds; a lost link or the timeout (a ceiling against a hang) ends it.
    private func wait(for what: String, throughALostLink: Bool = false, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + replyTimeout
        while !condition() {
            if let lostReason, !throughALostLink || reconnecting == nil { throw CLIError("\(name) disconnected (\(lostReason)).", hint: "Bring the glasses closer, or check they are charged, and try again.") }
            guard ContinuousClock.now < deadline else {
                throw CLIError("\(name) did not answer within \(replyTimeout) (waiting for \(what)).", hint: "A program that ignores Ctrl-C may hold the REPL: reset the glasses and try again.")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: Files

    func listFiles(in directory: String) async throws -> [GlassesFile] {
        let path = Self.literal(directory)
        let listing = try await fileCommand(directory.isEmpty ? "/" : directory, """
        import os
        d=\(path)
        for n in sorted(os.listdir(d) if d else os.listdir()):
            s=os.stat(d+'/'+n if d else n)
            print('%d\\t%d\\t%s'%(s[0]&0x4000!=0,s[6],n))
        """)
        return listing.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let size = Int(fields[1]) else { return nil }
            return GlassesFile(name: String(fields[2]), size: size, isDirectory: fields[0] == "1")
        }
    }

    func put(_ contents: Data, as path: String) async throws {
        _ = try await fileCommand(path, "import ubinascii\n_f=open(\(Self.literal(path)),'wb')")
        for start in stride(from: 0, to: contents.count, by: Self.pieceSize) {
            let piece = contents[(contents.startIndex + start)..<(contents.startIndex + min(start + Self.pieceSize, contents.count))]
            _ = try await fileCommand(path, "_f.write(ubinascii.a2b_base64('\(piece.base64EncodedString())'))")
        }
        _ = try await fileCommand(path, "_f.close()\ndel _f")
    }

    func get(_ path: String) async throws -> Data {
        _ = try await fileCommand(path, "import ubinascii\n_f=open(\(Self.literal(path)),'rb')")
        var contents = Data()
        while true {
            let text = try await fileCommand(path, "print(ubinascii.b2a_base64(_f.read(\(Self.pieceSize))).decode(),end='')")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { break }
            guard let piece = Data(base64Encoded: text) else {
                throw CLIError("\(name) sent a damaged piece of \(path); try again.")
            }
            contents.append(piece)
        }
        _ = try await fileCommand(path, "_f.close()\ndel _f")
        return contents
    }

    func remove(_ path: String) async throws {
        _ = try await fileCommand(path, "import os\nos.remove(\(Self.literal(path)))")
    }

    /// A command about a file, with the firmware's errno said in words.
    private func fileCommand(_ path: String, _ code: String) async throws -> String {
        let reply = try await run(code)
        guard reply.succeeded else {
            let last = Self.lastLine(of: reply.error)
            if last.contains("ENOENT") || last.contains("Errno 2") {
                throw CLIError("There is no \(path) on \(name).", hint: "See what is there with: sibyl glasses files list")
            }
            if last.contains("EISDIR") || last.contains("Errno 21") || last.contains("EPERM") || last.contains("Errno 1") {
                throw CLIError("\(path) on \(name) is a directory, or cannot be changed: \(last)")
            }
            if last.contains("ENOSPC") || last.contains("Errno 28") {
                throw CLIError("\(name) has no room left for \(path).", hint: "Remove files with: sibyl glasses files remove NAME")
            }
            throw CLIError("\(name) could not work on \(path): \(last)")
        }
        return reply.output
    }

    /// A Python string literal for `text`.
    static func literal(_ text: String) -> String {
        "'" + DeviceApp.escape(text) + "'"
    }

    static func lastLine(of traceback: String) -> String {
        traceback.split(whereSeparator: \.isNewline).last.map(String.init) ?? traceback
    }
}
