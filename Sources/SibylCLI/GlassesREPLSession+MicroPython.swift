import Foundation
import Glasses
import Monocle

/// Monocle's MicroPython REPL on the serial channel.
extension GlassesREPLSession {
    struct MicroPythonState: Sendable {
        /// Serial bytes received since the session's own command started.
        var received: [UInt8] = []
        var lastReceived = ContinuousClock.now
        /// While the session runs its own commands, the REPL's replies are not serial output.
        var commanding = false
        var inRawMode = false
    }

    /// The largest file piece one command carries (base64 makes it 4/3 longer).
    static let pieceSize = 384

    func pythonReceived(_ bytes: Data) {
        python.received.append(contentsOf: bytes)
        python.lastReceived = .now
        if !python.commanding { output.yield(bytes) }
    }

    func pythonType(_ bytes: Data) async throws {
        // Keys typed while the glasses reconnect wait for them.
        if !isConnected { try await wait(for: "the glasses to come back", throughALostLink: true) { isConnected } }
        try await transport.write(bytes, to: .serial)
    }

    /// Back to the friendly REPL (Ctrl-B), then a soft reset (Ctrl-D on an empty line): the app starts
    /// again, and what it prints is serial output.
    func pythonSoftReset() async throws {
        python.commanding = false
        python.inRawMode = false
        try await transport.write(Data([0x02, 0x04]), to: .serial)
    }

    func pythonExecute(_ code: String) async throws -> String {
        let reply = try await pythonRun(code)
        guard reply.succeeded else {
            throw CLIError("The code raised an exception on \(name):\n" + reply.error.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return reply.output
    }

    /// Interrupts what runs and enters the raw REPL; a banner may come twice (the firmware answers
    /// ^A after the interrupted program ends), so the session waits for the line to fall quiet.
    private func enterRawREPL() async throws {
        python.commanding = true
        python.received = []
        try await transport.write(Data(RawREPL.enter), to: .serial)
        try await wait(for: "the raw REPL") { RawREPL.containsBanner(python.received) }
        try await wait(for: "the raw REPL to settle") { ContinuousClock.now - python.lastReceived > .milliseconds(200) }
        python.inRawMode = true
    }

    private func pythonRun(_ code: String) async throws -> RawREPL.Reply {
        if !isConnected { try await wait(for: "the glasses to come back", throughALostLink: true) { isConnected } }
        if !python.inRawMode { try await enterRawREPL() }
        python.commanding = true
        python.received = []
        try await transport.write(RawREPL.command(code), to: .serial)
        var reply: RawREPL.Reply?
        try await wait(for: "a reply to `\(code.prefix(40))`") {
            reply = RawREPL.reply(in: python.received)
            return reply != nil
        }
        return reply!
    }

    // MARK: Files

    func pythonListFiles(in directory: String) async throws -> [GlassesFile] {
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

    func pythonPut(_ contents: Data, as path: String) async throws {
        _ = try await fileCommand(path, "import ubinascii\n_f=open(\(Self.literal(path)),'wb')")
        for start in stride(from: 0, to: contents.count, by: Self.pieceSize) {
            let piece = contents[(contents.startIndex + start)..<(contents.startIndex + min(start + Self.pieceSize, contents.count))]
            _ = try await fileCommand(path, "_f.write(ubinascii.a2b_base64('\(piece.base64EncodedString())'))")
        }
        _ = try await fileCommand(path, "_f.close()\ndel _f")
    }

    func pythonGet(_ path: String) async throws -> Data {
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

    func pythonRemove(_ path: String) async throws {
        _ = try await fileCommand(path, "import os\nos.remove(\(Self.literal(path)))")
    }

    /// A command about a file, with the firmware's errno said in words.
    private func fileCommand(_ path: String, _ code: String) async throws -> String {
        let reply = try await pythonRun(code)
        guard reply.succeeded else {
            let last = GlassesError.lastLine(of: reply.error)
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
}
