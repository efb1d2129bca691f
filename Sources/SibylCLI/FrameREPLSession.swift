import Foundation
import FrameGlasses
import FrameProtocol

/// Frame glasses through their Lua REPL: any `FrameTransport` (Bluetooth, the virtual Frame).
///
/// Frame's REPL echoes nothing and has no prompt: each write is one Lua chunk of at most MTU − 3
/// bytes, and `print` is the only way back. So every command the session sends ends with a
/// `print` of a marker of its own, and is over when the marker (or the chunk's error) arrives.
/// Longer code is written to a file on the flash and `require`d. What the glasses print outside
/// the session's commands (the running app) is serial output.
actor FrameREPLSession: GlassesREPLSession {
    nonisolated let name: String
    nonisolated let serialOutput: AsyncStream<Data>
    private let output: AsyncStream<Data>.Continuation
    nonisolated let notices: AsyncStream<String>
    private let notice: AsyncStream<String>.Continuation
    private let transport: any FrameTransport
    private let replyTimeout: Duration
    /// The pause after a break or reset, for the firmware to act on it (FrameMsg waits 200 ms).
    private let signalPause: Duration
    private var reader: Task<Void, Never>?
    private var limits: FrameLimits?
    private var lostReason: String?
    private var closing = false
    private var reconnecting: Task<Void, Never>?
    /// The command in flight: its marker, chunk name, and what came back so far.
    private var pending: Pending?
    private var sequence = 0
    /// Prints outside commands, joined as a terminal shows them.
    private var joiner = FramePrintJoiner()
    /// A line typed at the interactive REPL, until its newline.
    private var typed = Data()
    /// Whether `main.lua` may be running (after a reset): the session's own commands break it first,
    /// as Frame's REPL runs a chunk only once the app has returned.
    private var appMayRun = false

    private struct Pending {
        var marker: String
        var chunkName: String
        var shownName: String
        var streaming: Bool
        var joiner = FramePrintJoiner()
        var output = ""
        var error: String?
        var done = false
        /// When a notification that reads like a Lua error from elsewhere (a required file) came last.
        var lastErrorLike: ContinuousClock.Instant?
    }

    /// The file longer code is written to before it is `require`d.
    static let scratchModule = "_sibyl_exec"
    /// The file that requires it and keeps its error.
    static let scratchRunner = "_sibyl_run"

    init(transport: any FrameTransport, name: String, replyTimeout: Duration = .seconds(30), signalPause: Duration = .milliseconds(200)) {
        self.transport = transport
        self.name = name
        self.replyTimeout = replyTimeout
        self.signalPause = signalPause
        (serialOutput, output) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (notices, notice) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The limits of the link now (MTU 247 until connected).
    var currentLimits: FrameLimits { limits ?? FrameLimits(mtu: 247) }

    /// Connects, then stops whatever runs, as frame-msg does: break, reset, break.
    func connect() async throws {
        let events = transport.events
        reader = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        try await transport.connect()
        try await wait(for: "the connection") { limits != nil }
        try await signal(.breakSignal)
        try await signal(.resetSignal)
        try await signal(.breakSignal)
        flushPrints()
    }

    private func signal(_ write: FrameWrite) async throws {
        try await transport.write(try write.bytes(limits: currentLimits))
        try await Task.sleep(for: signalPause)
    }

    private func handle(_ event: FrameTransportEvent) {
        switch event {
        case .connected(let mtu):
            if lostReason != nil { notice.yield("connected to \(name) again") }
            limits = FrameLimits(mtu: mtu)
            lostReason = nil
        case .received(let bytes):
            receive(FrameNotification(bytes))
        case .disconnected(let reason):
            limits = nil
            lostReason = reason
            guard !closing else { return }
            notice.yield("\(name) disconnected (\(reason)); connecting again…")
            if reconnecting == nil { reconnecting = Task { await self.reconnect() } }
        }
    }

    private func receive(_ notification: FrameNotification) {
        if case .printed(let text) = notification, Self.isMarker(text) {
            // A marker: the end of a command (one from an abandoned command is dropped).
            if pending?.marker == text { pending?.done = true }
            return
        }
        guard var command = pending, !command.done else {
            let text = joiner.add(notification)
            if !text.isEmpty { output.yield(Data(text.utf8)) }
            return
        }
        if case .printed(let text) = notification {
            if text.hasPrefix(command.chunkName + ":") {
                // The chunk's own error; shown with the name the author's code would have had alone.
                command.error = command.shownName + text.dropFirst(command.chunkName.count)
                command.done = true
                pending = command
                return
            }
            command.lastErrorLike = LuaError(parsing: text) != nil ? .now : nil
        }
        let text = command.joiner.add(notification)
        if command.streaming { if !text.isEmpty { output.yield(Data(text.utf8)) } } else { command.output += text }
        pending = command
    }

    /// Ends the line of prints outside commands, so a prompt starts on a line of its own.
    private func flushPrints() {
        let end = joiner.finish()
        if !end.isEmpty { output.yield(Data(end.utf8)) }
    }

    /// Tries to connect again for a while (Frame drops the link when it sleeps or updates).
    private func reconnect() async {
        defer { reconnecting = nil }
        var attempts = 0
        while !closing && limits == nil && attempts < 60 {
            attempts += 1
            try? await Task.sleep(for: .milliseconds(500))
            if closing || limits != nil { return }
            try? await transport.connect()
        }
        if limits == nil && !closing { notice.yield("\(name) did not come back; leave and connect again") }
    }

    func close() async {
        closing = true
        reconnecting?.cancel()
        await transport.disconnect()
        reader?.cancel()
        flushPrints()
        output.finish()
        notice.finish()
    }

    // MARK: The interactive REPL

    /// Lines typed: each complete line is sent as one chunk and its prints are serial output;
    /// Ctrl-C (0x03) sends a break at once.
    func type(_ bytes: Data) async throws {
        for byte in bytes {
            if byte == FrameWrite.breakByte {
                typed.removeAll()
                try await interrupt()
                continue
            }
            guard byte == 0x0A else {
                typed.append(byte)
                continue
            }
            let line = String(decoding: typed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            typed.removeAll()
            // An empty piece of serial output after each line: everything the line printed is before it.
            defer { output.yield(Data()) }
            guard !line.isEmpty else { continue }
            if let error = try await run(line, streaming: true, timeout: nil).error {
                output.yield(Data((error + "\n").utf8))
            }
        }
    }

    func interrupt() async throws {
        try await transport.write(try FrameWrite.breakSignal.bytes(limits: currentLimits))
    }

    /// Break, then reset (the firmware resets only from its idle loop): `main.lua` runs again.
    func softReset() async throws {
        try await signal(.breakSignal)
        flushPrints()
        try await transport.write(try FrameWrite.resetSignal.bytes(limits: currentLimits))
        appMayRun = true
    }

    // MARK: Commands

    func execute(_ code: String) async throws -> String {
        if appMayRun {
            appMayRun = false
            try await signal(.breakSignal)
            flushPrints()
        }
        let reply = try await run(code, streaming: false, timeout: replyTimeout)
        if let error = reply.error {
            // What it printed before the error is part of the story.
            throw CLIError("The code raised an error on \(name):\n" + reply.output + error)
        }
        return reply.output
    }

    struct Reply {
        var output: String
        var error: String?
    }

    static func isMarker(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix(markerPrefix) && text.dropFirst().allSatisfy(\.isASCII) && Int(text.dropFirst()) != nil
    }

    /// Markers are a 0x02 byte and a number: short, so commands fit small MTUs, and unlike any text an app prints.
    static let markerPrefix = "\u{2}"

    /// Runs code to its end: as one chunk when it fits, else written to a file and required.
    /// `mustFit`: code that prints nothing, sent only as one chunk (no marker pause, no file).
    private func run(_ code: String, streaming: Bool, timeout: Duration?, mustFit: Bool = false) async throws -> Reply {
        if !isConnected { try await wait(for: "the glasses to come back", throughALostLink: true) { limits != nil } }
        sequence += 1
        let marker = Self.markerPrefix + String(sequence)
        // \002 in full: a shorter escape would take the number's digits in.
        // Frame's radio holds one notification at a time and print drops what does not fit, so
        // after code that may print, the marker waits a moment (writes that print nothing go at once).
        let printMarker = (mustFit ? "" : "frame.sleep(0.02)") + "print(\"\\002\(sequence)\")"
        let chunk = code + "\n" + printMarker
        if chunk.utf8.count <= currentLimits.maximumLuaLength, (try? FrameWrite.lua(chunk).bytes(limits: currentLimits)) != nil {
            return try await send(chunk, marker: marker, shownName: LuaError.chunkName(ofSource: code), streaming: streaming, timeout: timeout)
        }
        guard !mustFit else { throw CLIError("A command does not fit one Lua chunk at MTU \(currentLimits.mtu).") }
        // The code, and a runner that keeps its error: an error longer than MTU − 3 bytes would be lost
        // in the firmware's print, so it is fetched afterwards in pieces that fit.
        try await put(Data(code.utf8), as: Self.scratchModule + ".lua")
        try await put(Data("_sx=nil local ok,e=pcall(require,\"\(Self.scratchModule)\") if not ok then _sx=tostring(e) end".utf8), as: Self.scratchRunner + ".lua")
        let require = "require(\"\(Self.scratchRunner)\")"
        var reply = try await send(require + ";" + printMarker, marker: marker, shownName: LuaError.chunkName(ofSource: require), streaming: streaming, timeout: timeout)
        if reply.error == nil, let length = Int(try await command("print(_sx and #_sx or 0)").trimmingCharacters(in: .whitespacesAndNewlines)), length > 0 {
            var error = ""
            let piece = max(1, currentLimits.maximumLuaLength - 3)
            for start in stride(from: 1, through: length, by: piece) {
                error += try await command("print(_sx:sub(\(start),\(start + piece - 1)))").replacingOccurrences(of: "\n", with: "")
            }
            reply.error = error
        }
        // These print nothing, and must fit as they are: the long way round would leave a scratch file again.
        _ = try? await command("frame.file.remove(\"\(Self.scratchModule).lua\")", mustFit: true)
        _ = try? await command("frame.file.remove(\"\(Self.scratchRunner).lua\") _sx=nil", mustFit: true)
        return reply
    }

    /// Sends one chunk and waits for its marker or its error; `timeout` nil waits as long as it takes
    /// (the interactive REPL, where Ctrl-C breaks a long-running line).
    private func send(_ chunk: String, marker: String, shownName: String, streaming: Bool, timeout: Duration?) async throws -> Reply {
        if streaming { flushPrints() }
        pending = Pending(marker: marker, chunkName: LuaError.chunkName(ofSource: chunk), shownName: shownName, streaming: streaming)
        defer { pending = nil }
        try await transport.write(try FrameWrite.lua(chunk).bytes(limits: currentLimits))
        try await wait(for: "a reply to `\(chunk.prefix(40))`", timeout: timeout) {
            guard let command = pending else { return true }
            // An error raised in another chunk (a required file) ends the command without its marker.
            if let at = command.lastErrorLike, ContinuousClock.now - at > .milliseconds(600) { return true }
            return command.done
        }
        var command = pending!
        if command.error == nil, !command.done, command.lastErrorLike != nil {
            // The last thing printed was the error: take it out of the output.
            command.error = Self.lastPrinted(in: command.output)
            command.output = String(command.output.dropLast(command.error!.count))
        }
        let end = command.joiner.finish()
        if streaming, !end.isEmpty { output.yield(Data(end.utf8)) }
        return Reply(output: command.output + end, error: command.error)
    }

    static func lastPrinted(in output: String) -> String {
        output.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? output
    }

    /// A command of the session's own; its error is thrown.
    @discardableResult
    private func command(_ code: String, about path: String? = nil, mustFit: Bool = false) async throws -> String {
        if appMayRun {
            appMayRun = false
            try await signal(.breakSignal)
            flushPrints()
        }
        let reply = try await run(code, streaming: false, timeout: replyTimeout, mustFit: mustFit)
        guard let error = reply.error else { return reply.output }
        let message = LuaError(parsing: error)?.message ?? error
        if let path {
            if message.contains("cannot open file") || message.contains("error deleting") || message.contains("directory not found") {
                throw CLIError("There is no \(path) on \(name).", hint: "See what is there with: sibyl glasses files list --kind frame")
            }
            throw CLIError("\(name) could not work on \(path): \(message)")
        }
        throw CLIError("\(name) answered with an error: \(error)")
    }

    private var isConnected: Bool { limits != nil }

    /// Polls `condition` until it holds; a lost link or the timeout (a ceiling against a hang) ends it.
    private func wait(for what: String, throughALostLink: Bool = false, timeout: Duration? = nil, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + (timeout ?? (throughALostLink ? .seconds(60) : replyTimeout))
        let limited = timeout != nil || pending == nil
        while !condition() {
            if let lostReason, !throughALostLink || reconnecting == nil {
                throw CLIError("\(name) disconnected (\(lostReason)).", hint: "Bring the glasses closer, or check they are charged, and try again.")
            }
            guard !limited || ContinuousClock.now < deadline else {
                throw CLIError("\(name) did not answer within \(timeout ?? replyTimeout) (waiting for \(what)).", hint: "An app that runs holds Frame's REPL: send a break (Ctrl-C in the REPL) or reset the glasses, and try again.")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: Files

    func listFiles(in directory: String) async throws -> [GlassesFile] {
        let path = LuaLiteral.quoted(directory.isEmpty ? "/" : directory)
        let listing = try await command(
            "for _,e in ipairs(frame.file.listdir(\(path))) do if e.name~='.' and e.name~='..' then print(e.type..'\\t'..e.size..'\\t'..e.name) frame.sleep(0.02) end end",
            about: directory.isEmpty ? "/" : directory
        )
        return listing.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let size = Int(fields[1]) else { return nil }
            return GlassesFile(name: String(fields[2]), size: size, isDirectory: fields[0] == "2")
        }.filter { directory.isEmpty && [Self.scratchModule + ".lua", Self.scratchRunner + ".lua"].contains($0.name) ? false : true }
            .sorted { $0.name < $1.name }
    }

    func put(_ contents: Data, as path: String) async throws {
        // Room for the marker `run` appends (a newline, print("\2N")).
        let markerRoom = 20
        let chunks: [String]
        do {
            chunks = try LuaFileUpload(path: path, contents: contents).chunks(limits: currentLimits, suffixLength: markerRoom)
        } catch {
            throw CLIError("Cannot write \(path) to \(name): \(error.localizedDescription)")
        }
        for chunk in chunks { try await command(chunk, about: path, mustFit: true) }
    }

    /// Reads a file binary-safe: Frame's `read()` gives lines without their newline (at most 512
    /// bytes each), so the device puts the newlines back, sends each piece as hex that fits one
    /// notification, and the size from the listing settles whether the file ended with one.
    func get(_ path: String) async throws -> Data {
        let components = path.split(separator: "/")
        let parent = components.dropLast().joined(separator: "/")
        let fileName = components.last.map(String.init) ?? path
        guard let entry = try await listFiles(in: parent).first(where: { $0.name == fileName }), !entry.isDirectory else {
            throw CLIError("There is no \(path) on \(name).", hint: "See what is there with: sibyl glasses files list --kind frame")
        }
        let piece = max(1, (currentLimits.maximumLuaLength) / 2)
        try await command("_sg=frame.file.open(\(LuaLiteral.quoted(path)),'r') _sb='' _se=false", about: path)
        try await command("""
        function _sn() while #_sb<\(piece) and not _se do local l=_sg:read() if l==nil then _se=true else _sb=_sb..l..(#l<512 and '\\n' or '') end end \
        local p=_sb:sub(1,\(piece)) _sb=_sb:sub(\(piece + 1)) print((p:gsub('.',function(c) return string.format('%02x',c:byte()) end))) end
        """, about: path)
        var contents = Data()
        while contents.count < entry.size {
            let hex = try await command("_sn()", about: path).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !hex.isEmpty else { break }
            guard let bytes = Data(hexString: hex) else { throw CLIError("\(name) sent a damaged piece of \(path); try again.") }
            contents.append(bytes)
        }
        _ = try? await command("_sg:close() _sg=nil _sb=nil _sn=nil")
        return contents.prefix(entry.size)
    }

    func remove(_ path: String) async throws {
        try await command("frame.file.remove(\(LuaLiteral.quoted(path)))", about: path)
    }
}

/// Frame's prints as a terminal shows them: `print(a, b)` arrives as "a", "\t", "b" with no
/// newline, so a newline goes between two notifications that are not a tab, and at the end.
struct FramePrintJoiner: Sendable {
    private var lastWasText = false
    private var lastEndedLine = true

    /// The text to show for a notification; data ones are shown as hex.
    mutating func add(_ notification: FrameNotification) -> String {
        switch notification {
        case .printed(let text):
            if text == "\t" {
                lastWasText = false
                lastEndedLine = false
                return text
            }
            let start = lastWasText && !lastEndedLine ? "\n" : ""
            lastWasText = true
            lastEndedLine = text.hasSuffix("\n")
            return start + text
        case .data(let bytes):
            let start = lastEndedLine ? "" : "\n"
            lastWasText = false
            lastEndedLine = true
            return start + "[data " + bytes.map { String(format: "%02x", $0) }.joined(separator: " ") + "]\n"
        }
    }

    /// A newline if the last print left a line open.
    mutating func finish() -> String {
        defer { lastWasText = false; lastEndedLine = true }
        return lastEndedLine ? "" : "\n"
    }
}

extension Data {
    /// Bytes from pairs of hex digits; nil for anything else.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
