import Foundation
import FrameEmulator
import FrameProtocol
import Glasses
import Synchronization

/// The console of `glasses emulate --kind frame`: the app's prints and data, its display, and the
/// author's commands.
final class FrameEmulateConsole: Sendable {
    let glasses: FrameEmulator
    let limits: FrameLimits
    let transport = Mutex<EmulatorFrameTransport?>(nil)
    /// Printed text not yet shown (a line stays open for a moment: `print(a, b)` comes in pieces).
    private let pending = Mutex<(text: String, joiner: FramePrintJoiner, at: ContinuousClock.Instant)>(("", FramePrintJoiner(), .now))
    private let acknowledgements = Mutex(0)

    init(glasses: FrameEmulator, limits: FrameLimits) {
        self.glasses = glasses
        self.limits = limits
    }

    func received(_ notification: FrameNotification) {
        if notification.isAcknowledgement || notification.isNegativeAcknowledgement { acknowledgements.withLock { $0 += 1 } }
        switch notification {
        case .printed(let text):
            if text == FrameAppRun.endedMarker {
                flush()
                Terminal.print(Terminal.dim("[main.lua returned; Frame's REPL is idle (lua CODE runs a chunk)]"))
                return
            }
            let complete: String = pending.withLock { state in
                state.text += state.joiner.add(notification)
                state.at = .now
                guard let newline = state.text.lastIndex(of: "\n") else { return "" }
                let lines = String(state.text[...newline])
                state.text = String(state.text[state.text.index(after: newline)...])
                return lines
            }
            show(complete)
        case .data(let bytes):
            flush()
            Terminal.print(Terminal.dim("data   │ ") + bytes.map { String(format: "%02x", $0) }.joined(separator: " "))
        }
    }

    /// Shows the open line (after a quiet moment, or before other output).
    func flush() {
        let rest: String = pending.withLock { state in
            defer { state.text = "" }
            return state.text + state.joiner.finish()
        }
        show(rest)
    }

    private func show(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let isError = LuaError(parsing: String(line)) != nil
            Terminal.print(Terminal.dim("serial │ ") + (isError ? Terminal.red(String(line)) : String(line)))
        }
    }

    /// Shows each new frame the app shows, and open print lines once they have been quiet a moment.
    func watch(from framesBefore: Int) async {
        var shown = framesBefore
        while !Task.isCancelled {
            let quiet = pending.withLock { !$0.text.isEmpty && ContinuousClock.now - $0.at > .milliseconds(150) }
            if quiet { flush() }
            let frames = glasses.display.frames
            if frames.count != shown, let current = frames.last {
                shown = frames.count
                if !FrameAppRun.isPairingScreen(current) {
                    flush()
                    Terminal.print(FrameConsole.render(current.texts))
                }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    static let help = "tap · say FILE.wav · photo FILE.jpg · lua CODE · send CODE HEX · screen [--png FILE] · pause [SECONDS] · quit"

    /// Reads commands until `quit` or the end of input.
    func readCommands() async {
        await Terminal.readCommands(help: Self.help) { command, argument in
            switch command {
            case "tap":
                try await glasses.tap()
            case "say":
                let seconds = try glasses.hear(wavFile: argument)
                Terminal.print(Terminal.dim("the microphone will hear \(String(format: "%.1f", seconds)) s of \(argument ?? "") from the next frame.microphone.start"))
            case "photo":
                try glasses.see(jpegFile: argument)
                Terminal.print(Terminal.dim("the camera will see \(argument ?? "")"))
            case "lua":
                guard let argument else { throw CLIError("lua needs code: lua print(frame.battery_level())") }
                try await write(try FrameWrite.lua(argument).bytes(limits: limits))
            case "send":
                try await send(argument ?? "")
            case "screen":
                try screen(argument)
            case "pause":
                try await Task.sleep(for: .seconds(Double(argument ?? "1") ?? 1))
            default:
                return false
            }
            return true
        }
    }

    private func write(_ bytes: Data) async throws {
        guard let transport = transport.withLock({ $0 }) else { throw CLIError("The virtual Frame is not connected.") }
        try await transport.write(bytes, to: .frame)
    }

    /// `send CODE HEX`: a frame-msg message, one packet at a time; each waits up to a second for
    /// the app's acknowledgement (an app without data.lua's acknowledgements just takes longer).
    private func send(_ argument: String) async throws {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let codeText = parts.first, let code = UInt8(codeText.hasPrefix("0x") ? String(codeText.dropFirst(2)) : codeText, radix: 16) else {
            throw CLIError("send needs a message code (hex, 00–ff) and the payload in hex: send 20 48656c6c6f")
        }
        let hex = parts.count > 1 ? parts[1].replacingOccurrences(of: " ", with: "") : ""
        guard let payload = Data(hexString: hex) else { throw CLIError("The payload is not hex: \(hex)") }
        let packets = try FrameMessage(code: code, payload: payload).writes(limits: limits)
        var acknowledged = 0
        for packet in packets {
            let before = acknowledgements.withLock { $0 }
            try await write(packet)
            let deadline = ContinuousClock.now + .seconds(1)
            while acknowledgements.withLock({ $0 }) == before, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            if acknowledgements.withLock({ $0 }) > before { acknowledged += 1 }
        }
        Terminal.print(Terminal.dim("sent message 0x\(String(format: "%02x", code)) (\(payload.count) bytes) in \(packets.count) packet\(packets.count == 1 ? "" : "s"), \(acknowledged) acknowledged"))
    }

    private func screen(_ argument: String?) throws {
        var png: String?
        if let argument {
            let words = argument.split(separator: " ").map(String.init)
            guard words.count == 2, words[0] == "--png" else { throw CLIError("screen takes --png FILE, or nothing.") }
            png = words[1]
        }
        guard let frame = glasses.display.frames.last(where: { !FrameAppRun.isPairingScreen($0) }) else {
            Terminal.print(Terminal.dim("the app has shown nothing yet (frame.display.show() puts a frame on screen)"))
            return
        }
        try GlassesCommand.Screen.show(frame, png: png)
    }
}
