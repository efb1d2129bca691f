import Foundation
import FrameProtocol
import Glasses

/// Frame's Lua REPL on Frame's channel: each write is one Lua chunk of at most MTU − 3 bytes, and
/// `print` is the only way back. Every command the session sends ends with a `print` of a marker of
/// its own, and is over when the marker (or the chunk's error) arrives; longer code is written to a
/// file on the flash and `require`d. What the glasses print outside the session's commands (the
/// running app) is serial output.
extension GlassesREPLSession {
    struct LuaState: Sendable {
        /// The command in flight: its marker, chunk name, and what came back so far.
        var pending: Pending?
        var sequence = 0
        /// Prints outside commands, joined as a terminal shows them.
        var joiner = FramePrintJoiner()
        /// A line typed at the interactive REPL, until its newline.
        var typed = Data()
        /// Whether `main.lua` may be running (after a reset): the session's own commands break it first,
        /// as Frame's REPL runs a chunk only once the app has returned.
        var appMayRun = false
    }

    struct Pending: Sendable {
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

    struct LuaReply {
        var output: String
        var error: String?
    }

    /// The file longer code is written to before it is `require`d.
    static let scratchModule = "_sibyl_exec"
    /// The file that requires it and keeps its error.
    static let scratchRunner = "_sibyl_run"
    /// Markers are a 0x02 byte and a number: short, so commands fit small MTUs, and unlike any text an app prints.
    static let markerPrefix = "\u{2}"

    /// The limits of the link now (MTU 247 until connected).
    var limits: FrameLimits { FrameLimits(mtu: (writeLength ?? 244) + 3) }

    /// Stops whatever runs, as frame-msg does on connecting: break, reset, break.
    func luaConnected() async throws {
        try await signal(.breakSignal)
        try await signal(.resetSignal)
        try await signal(.breakSignal)
        flushPrints()
    }

    func signal(_ write: FrameWrite) async throws {
        try await transport.write(try write.bytes(limits: limits), to: .frame)
        try await Task.sleep(for: signalPause)
    }

    func luaReceived(_ bytes: Data) {
        let notification = FrameNotification(bytes)
        if case .printed(let text) = notification, Self.isMarker(text) {
            // A marker: the end of a command (one from an abandoned command is dropped).
            if lua.pending?.marker == text { lua.pending?.done = true }
            return
        }
        guard var command = lua.pending, !command.done else {
            let text = lua.joiner.add(notification)
            if !text.isEmpty { output.yield(Data(text.utf8)) }
            return
        }
        if case .printed(let text) = notification {
            if text.hasPrefix(command.chunkName + ":") {
                // The chunk's own error; shown with the name the author's code would have had alone.
                command.error = command.shownName + text.dropFirst(command.chunkName.count)
                command.done = true
                lua.pending = command
                return
            }
            command.lastErrorLike = LuaError(parsing: text) != nil ? .now : nil
        }
        let text = command.joiner.add(notification)
        if command.streaming { if !text.isEmpty { output.yield(Data(text.utf8)) } } else { command.output += text }
        lua.pending = command
    }

    /// Ends the line of prints outside commands, so a prompt starts on a line of its own.
    func flushPrints() {
        let end = lua.joiner.finish()
        if !end.isEmpty { output.yield(Data(end.utf8)) }
    }

    // MARK: The interactive REPL

    /// Lines typed: each complete line is sent as one chunk and its prints are serial output;
    /// Ctrl-C (0x03) sends a break at once.
    func luaType(_ bytes: Data) async throws {
        for byte in bytes {
            if byte == FrameWrite.breakByte {
                lua.typed.removeAll()
                try await luaInterrupt()
                continue
            }
            guard byte == 0x0A else {
                lua.typed.append(byte)
                continue
            }
            let line = String(decoding: lua.typed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            lua.typed.removeAll()
            // An empty piece of serial output after each line: everything the line printed is before it.
            defer { output.yield(Data()) }
            guard !line.isEmpty else { continue }
            if let error = try await run(line, streaming: true, timeout: nil).error {
                output.yield(Data((error + "\n").utf8))
            }
        }
    }

    func luaInterrupt() async throws {
        try await transport.write(try FrameWrite.breakSignal.bytes(limits: limits), to: .frame)
    }

    /// Break, then reset (the firmware resets only from its idle loop): `main.lua` runs again.
    func luaSoftReset() async throws {
        try await signal(.breakSignal)
        flushPrints()
        try await transport.write(try FrameWrite.resetSignal.bytes(limits: limits), to: .frame)
        lua.appMayRun = true
    }

    // MARK: Commands

    func luaExecute(_ code: String) async throws -> String {
        try await breakTheApp()
        let reply = try await run(code, streaming: false, timeout: replyTimeout)
        if let error = reply.error {
            // What it printed before the error is part of the story.
            throw CLIError("The code raised an error on \(name):\n" + reply.output + error)
        }
        return reply.output
    }

    /// The session's commands run only once the app has returned: a break stops one that may run.
    private func breakTheApp() async throws {
        guard lua.appMayRun else { return }
        lua.appMayRun = false
        try await signal(.breakSignal)
        flushPrints()
    }

    static func isMarker(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix(markerPrefix) && text.dropFirst().allSatisfy(\.isASCII) && Int(text.dropFirst()) != nil
    }

    /// Runs code to its end: as one chunk when it fits, else written to a file and required.
    /// `mustFit`: code that prints nothing, sent only as one chunk (no marker pause, no file).
    private func run(_ code: String, streaming: Bool, timeout: Duration?, mustFit: Bool = false) async throws -> LuaReply {
        if !isConnected { try await wait(for: "the glasses to come back", throughALostLink: true) { isConnected } }
        lua.sequence += 1
        let sequence = lua.sequence
        let marker = Self.markerPrefix + String(sequence)
        // \002 in full: a shorter escape would take the number's digits in.
        // Frame's radio holds one notification at a time and print drops what does not fit, so
        // after code that may print, the marker waits a moment (writes that print nothing go at once).
        let printMarker = (mustFit ? "" : "frame.sleep(0.02)") + "print(\"\\002\(sequence)\")"
        let chunk = code + "\n" + printMarker
        if chunk.utf8.count <= limits.maximumLuaLength, (try? FrameWrite.lua(chunk).bytes(limits: limits)) != nil {
            return try await send(chunk, marker: marker, shownName: LuaError.chunkName(ofSource: code), streaming: streaming, timeout: timeout)
        }
        guard !mustFit else { throw CLIError("A command does not fit one Lua chunk at MTU \(limits.mtu).") }
        // The code, and a runner that keeps its error: an error longer than MTU − 3 bytes would be lost
        // in the firmware's print, so it is fetched afterwards in pieces that fit.
        try await luaPut(Data(code.utf8), as: Self.scratchModule + ".lua")
        try await luaPut(Data("_sx=nil local ok,e=pcall(require,\"\(Self.scratchModule)\") if not ok then _sx=tostring(e) end".utf8), as: Self.scratchRunner + ".lua")
        let require = "require(\"\(Self.scratchRunner)\")"
        var reply = try await send(require + ";" + printMarker, marker: marker, shownName: LuaError.chunkName(ofSource: require), streaming: streaming, timeout: timeout)
        if reply.error == nil, let length = Int(try await command("print(_sx and #_sx or 0)").trimmingCharacters(in: .whitespacesAndNewlines)), length > 0 {
            var error = ""
            let piece = max(1, limits.maximumLuaLength - 3)
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
    private func send(_ chunk: String, marker: String, shownName: String, streaming: Bool, timeout: Duration?) async throws -> LuaReply {
        if streaming { flushPrints() }
        lua.pending = Pending(marker: marker, chunkName: LuaError.chunkName(ofSource: chunk), shownName: shownName, streaming: streaming)
        defer { lua.pending = nil }
        try await transport.write(try FrameWrite.lua(chunk).bytes(limits: limits), to: .frame)
        try await wait(for: "a reply to `\(chunk.prefix(40))`", timeout: timeout, limited: timeout != nil) {
            guard let command = lua.pending else { return true }
            // An error raised in another chunk (a required file) ends the command without its marker.
            if let at = command.lastErrorLike, ContinuousClock.now - at > .milliseconds(600) { return true }
            return command.done
        }
        var command = lua.pending!
        if command.error == nil, !command.done, command.lastErrorLike != nil {
            // The last thing printed was the error: take it out of the output.
            command.error = Self.lastPrinted(in: command.output)
            command.output = String(command.output.dropLast(command.error!.count))
        }
        let end = command.joiner.finish()
        if streaming, !end.isEmpty { output.yield(Data(end.utf8)) }
        return LuaReply(output: command.output + end, error: command.error)
    }

    static func lastPrinted(in output: String) -> String {
        output.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? output
    }

    /// A command of the session's own; its error is thrown.
    @discardableResult
    func command(_ code: String, about path: String? = nil, mustFit: Bool = false) async throws -> String {
        try await breakTheApp()
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
}
