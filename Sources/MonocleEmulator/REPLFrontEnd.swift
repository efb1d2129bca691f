import Foundation

/// The byte-exact REPL of Monocle's firmware, in front of the interpreter that runs the code.
///
/// It keeps what the firmware keeps: the friendly/raw mode (which survives a soft reset, so an
/// interrupted app drops straight into raw mode and a following ^A prints a second banner), the line
/// being typed, and the 1024-byte receive ring that drops bytes once full while code runs. The
/// interpreter marks in its output when the boot program or a command has finished (`\u{1E}B`,
/// `\u{1E}E`); everything else it prints is passed through with `\n` turned into `\r\n`.
struct REPLFrontEnd: Sendable {
    enum Mode: Sendable { case friendly, raw }
    enum Phase: Sendable, Equatable { case booting, idle, executing }

    /// What the emulator must do.
    enum Action: Sendable, Equatable {
        /// Bytes for the serial TX notifications.
        case output([UInt8])
        /// Run code in raw mode (output framed by ^D) or friendly mode (like typed at `>>>`).
        case execute(String, raw: Bool)
        /// Interrupt the running code (SIGINT).
        case interrupt
        /// Restart the interpreter and run `main.py` again.
        case softReset
        /// Restart without running `main.py` (Ctrl-\).
        case safeModeReset
    }

    static let rawBanner = Array("raw REPL; CTRL-B to exit\r\n>".utf8)
    static let friendlyBanner = Array("MicroPython v1.20.0-379-ga18d62e06 on 2023-09-05; Monocle on nRF52832\r\nType \"help()\" for more information.\r\n>>> ".utf8)
    static let softRebootLine = Array("MPY: soft reboot\r\n".utf8)
    static let ringCapacity = 1024

    private(set) var mode = Mode.friendly
    private(set) var phase = Phase.booting
    private var line: [UInt8] = []
    private var ring: [UInt8] = []
    private var interrupted = false
    private var lastOutput: UInt8 = 0
    private var pendingSentinel = false
    /// Bytes lost because the ring was full.
    private(set) var dropped = 0

    /// A fresh interpreter started: after power-on (friendly mode) or a soft reset (mode kept).
    mutating func interpreterStarted(afterSoftReset: Bool) -> [Action] {
        if !afterSoftReset { mode = .friendly }
        phase = .booting
        line = []
        ring = []
        interrupted = false
        pendingSentinel = false
        return afterSoftReset ? [.output(Self.softRebootLine)] : []
    }

    /// One write on the serial RX characteristic.
    mutating func receive(_ bytes: [UInt8]) -> [Action] {
        if bytes.contains(0x1C) { return [.safeModeReset] }
        var actions: [Action] = []
        for byte in bytes {
            if phase == .idle && ring.isEmpty {
                actions += consume(byte)
            } else if byte == 0x03 && phase != .idle && !interrupted {
                // The interrupt character is acted on, not stored, while code runs; a second one
                // arrives at the REPL once the code has stopped.
                interrupted = true
                actions.append(.interrupt)
            } else if ring.count < Self.ringCapacity {
                ring.append(byte)
            } else {
                dropped += 1
            }
        }
        return actions
    }

    /// Bytes the interpreter printed.
    mutating func interpreterPrinted(_ bytes: [UInt8]) -> [Action] {
        var actions: [Action] = []
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty { actions.append(.output(text)); text = [] }
        }
        for byte in bytes {
            if pendingSentinel {
                pendingSentinel = false
                flush()
                actions += finished(byte == UInt8(ascii: "B") ? .booting : .executing)
                continue
            }
            if byte == 0x1E {
                pendingSentinel = true
                continue
            }
            if byte == 0x0A && lastOutput != 0x0D { text.append(0x0D) }
            text.append(byte)
            lastOutput = byte
        }
        flush()
        return actions
    }

    private mutating func finished(_ what: Phase) -> [Action] {
        phase = .idle
        interrupted = false
        var actions: [Action]
        switch (what, mode) {
        case (.booting, .raw): actions = [.output(Self.rawBanner)]
        case (.booting, .friendly): actions = [.output(Self.friendlyBanner)]
        case (_, .raw): actions = [.output([UInt8(ascii: ">")])]
        case (_, .friendly): actions = [.output(Array(">>> ".utf8))]
        }
        lastOutput = 0
        // Bytes that arrived while the code ran are read now, in order.
        while phase == .idle && !ring.isEmpty {
            actions += consume(ring.removeFirst())
        }
        return actions
    }

    private mutating func consume(_ byte: UInt8) -> [Action] {
        switch mode {
        case .raw: consumeRaw(byte)
        case .friendly: consumeFriendly(byte)
        }
    }

    private mutating func consumeRaw(_ byte: UInt8) -> [Action] {
        switch byte {
        case 0x01:
            line = []
            return [.output(Self.rawBanner)]
        case 0x02:
            line = []
            mode = .friendly
            return [.output(Array("\r\n".utf8) + Self.friendlyBanner)]
        case 0x03:
            line = []
            return []
        case 0x04:
            if line.isEmpty {
                phase = .booting
                return [.output(Array("OK\r\n".utf8)), .softReset]
            }
            let code = String(decoding: line, as: UTF8.self)
            line = []
            phase = .executing
            return [.output(Array("OK".utf8)), .execute(code, raw: true)]
        default:
            line.append(byte)
            return []
        }
    }

    private mutating func consumeFriendly(_ byte: UInt8) -> [Action] {
        switch byte {
        case 0x01:
            line = []
            mode = .raw
            return [.output(Array("\r\n".utf8) + Self.rawBanner)]
        case 0x02:
            line = []
            return [.output(Array("\r\n".utf8) + Self.friendlyBanner)]
        case 0x03:
            line = []
            return [.output(Array("\r\n>>> ".utf8))]
        case 0x04:
            guard line.isEmpty else { return [] }
            phase = .booting
            return [.output(Array("\r\n".utf8)), .softReset]
        case 0x08, 0x7F:
            guard !line.isEmpty else { return [] }
            line.removeLast()
            return [.output([0x08, 0x20, 0x08])]
        case 0x0D, 0x0A:
            let code = String(decoding: line, as: UTF8.self)
            line = []
            if code.trimmingCharacters(in: .whitespaces).isEmpty { return [.output(Array("\r\n>>> ".utf8))] }
            phase = .executing
            return [.output(Array("\r\n".utf8)), .execute(code, raw: false)]
        default:
            line.append(byte)
            return [.output([byte])]
        }
    }
}
