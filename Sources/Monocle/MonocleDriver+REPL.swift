import Foundation
import Glasses

extension MonocleDriver {
    /// ^C ^C ^A until the raw-REPL banner comes, then a quiet moment.
    func enterRawREPL(_ link: GlassesLink) async throws {
        for attempt in 1...max(options.attempts, 1) {
            await link.enter(.preparing(.enteringRawREPL(attempt: attempt)))
            serial.removeAll()
            try await link.write(Data(RawREPL.enter), to: .serial)
            do {
                try await wait(for: "the raw REPL", timeout: options.replyTimeout) { RawREPL.containsBanner($0) }
                try await settle()
                return
            } catch GlassesError.timeout where attempt < options.attempts {
                await link.notice("no raw-REPL banner; sending ^C ^C ^A again")
            }
        }
    }

    /// Waits until the glasses have been quiet for a moment, so a second banner doesn't leak into the next reply.
    private func settle() async throws {
        var seen = -1
        var rounds = 0
        while seen != serial.count && rounds < 20 {
            seen = serial.count
            rounds += 1
            try await Task.sleep(for: options.settle)
        }
        serial.removeAll()
    }

    /// The version a command prints (a failed one gives nil).
    func query(_ code: String, what: String, _ link: GlassesLink) async throws -> String? {
        let reply = try await execute(code, what: what, timeout: options.replyTimeout, link)
        return reply.succeeded ? RawREPL.version(in: reply.output) : nil
    }

    /// Runs a command, retrying after a timeout; an exception on the glasses comes back in the reply.
    func execute(_ code: String, what: String, timeout: Duration, _ link: GlassesLink) async throws -> RawREPL.Reply {
        var attempt = 1
        while true {
            serial.removeAll()
            try await link.write(RawREPL.command(code), to: .serial)
            do {
                try await wait(for: what, timeout: timeout) { RawREPL.reply(in: $0) != nil }
                guard let reply = RawREPL.reply(in: serial) else {
                    throw GlassesError.unexpectedReply(waitingFor: what, got: String(decoding: serial, as: UTF8.self))
                }
                return reply
            } catch GlassesError.timeout where attempt < options.attempts {
                attempt += 1
                await link.notice("no reply for \(what); entering the raw REPL and trying again")
                try await enterRawREPL(link)
            }
        }
    }

    /// Runs a command that must succeed, retrying a failed one.
    func executeChecked(_ code: String, what: String, timeout: Duration, _ link: GlassesLink) async throws {
        var attempt = 1
        while true {
            let reply = try await execute(code, what: what, timeout: timeout, link)
            if reply.succeeded { return }
            guard attempt < options.attempts else { throw GlassesError.failedOnGlasses(command: code, error: reply.error) }
            attempt += 1
            await link.notice("\(what) failed (\(GlassesError.lastLine(of: reply.error))); trying again")
        }
    }

    /// Writes every file of the app.
    func upload(_ link: GlassesLink) async throws {
        let commands = app.uploadCommands()
        for (index, entry) in commands.enumerated() {
            await link.enter(.uploadingApp(file: entry.file, index: index, count: commands.count))
            try await executeChecked(entry.command, what: "writing \(entry.file)", timeout: options.writeTimeout, link)
        }
    }

    /// Writes an FPGA image in chunks that fit the link; the glasses restart into it.
    func updateFPGA(_ image: FPGAImage, _ link: GlassesLink) async throws {
        await link.enter(.updatingFPGA(progress: 0))
        try await executeChecked(FPGAImage.eraseCommand, what: "erasing the FPGA flash", timeout: options.writeTimeout, link)
        let chunks = image.chunks(maximumWriteLength: link.maximumWriteLength)
        var reported = 0
        for (index, chunk) in chunks.enumerated() {
            try await executeChecked(FPGAImage.writeCommand(chunk), what: "FPGA chunk \(index + 1) of \(chunks.count)", timeout: options.replyTimeout, link)
            let percent = (index + 1) * 100 / chunks.count
            if percent > reported {
                reported = percent
                await link.enter(.updatingFPGA(progress: Double(index + 1) / Double(chunks.count)))
            }
        }
        serial.removeAll()
        // The glasses print "Resetting" and restart; the lost link reconnects into the new image.
        try await link.write(RawREPL.command(FPGAImage.finishCommand), to: .serial)
    }
}
