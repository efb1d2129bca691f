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
        /// Run code pasted in paste mode (^E … ^D): a whole program, with friendly-mode output.
        case executePasted(String)
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
    /// Friendly mode: the lines of a compound statement typed so far (after `... ` prompts).
    private var continued: [String] = []
    /// Friendly mode: in paste mode (after ^E), and what was pasted.
    private var pasting = false
    private var pasted: [UInt8] = []
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
        continued = []
        pasting = false
        pasted = []
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
        if pasting { return consumePasted(byte) }
        switch byte {
        case 0x01:
            line = []
            continued = []
            mode = .raw
            return [.output(Array("\r\n".utf8) + Self.rawBanner)]
        case 0x02:
            line = []
            return [.output(Array("\r\n".utf8) + Self.friendlyBanner)]
        case 0x03:
            line = []
            continued = []
            return [.output(Array("\r\n>>> ".utf8))]
        case 0x04:
            guard line.isEmpty, continued.isEmpty else { return [] }
            phase = .booting
            return [.output(Array("\r\n".utf8)), .softReset]
        case 0x05:
            guard line.isEmpty, continued.isEmpty else { return [] }
            pasting = true
            pasted = []
            return [.output(Array("\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ".utf8))]
        case 0x08, 0x7F:
            guard !line.isEmpty else { return [] }
            line.removeLast()
            return [.output([0x08, 0x20, 0x08])]
        case 0x0D, 0x0A:
            let typed = String(decoding: line, as: UTF8.self)
            line = []
            let blank = typed.trimmingCharacters(in: .whitespaces).isEmpty
            if continued.isEmpty && blank { return [.output(Array("\r\n>>> ".utf8))] }
            // As MicroPython's REPL decides: a compound statement goes on until a blank line, open
            // brackets, a triple-quoted string or a trailing backslash until they are closed.
            let compound = Self.startsCompound(continued.first ?? typed)
            let ends = compound ? blank && !Self.isIncomplete(continued.joined(separator: "\n")) : !Self.isIncomplete((continued + [typed]).joined(separator: "\n"))
            if !ends {
                continued.append(typed)
                return [.output(Array("\r\n... ".utf8))]
            }
            if !compound { continued.append(typed) }
            let code = continued.joined(separator: "\n")
            continued = []
            phase = .executing
            return [.output(Array("\r\n".utf8)), .execute(code, raw: false)]
        default:
            line.append(byte)
            return [.output([byte])]
        }
    }

    /// Paste mode: everything is taken as typed until ^D runs it (^C drops it).
    private mutating func consumePasted(_ byte: UInt8) -> [Action] {
        switch byte {
        case 0x03:
            pasting = false
            pasted = []
            return [.output(Array("\r\n>>> ".utf8))]
        case 0x04:
            pasting = false
            let code = String(decoding: pasted, as: UTF8.self)
            pasted = []
            phase = .executing
            return [.output(Array("\r\n".utf8)), .executePasted(code)]
        case 0x0D, 0x0A:
            pasted.append(0x0A)
            return [.output(Array("\r\n=== ".utf8))]
        default:
            pasted.append(byte)
            return [.output([byte])]
        }
    }

    private static let compoundKeywords: Set<String> = ["if", "while", "for", "try", "def", "class", "with", "async"]

    /// Whether a line opens a compound statement (or is a decorator), which only a blank line ends.
    static func startsCompound(_ line: String) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        return text.hasPrefix("@") || compoundKeywords.contains(String(text.prefix { $0.isLetter || $0 == "_" }))
    }

    /// Whether code leaves a bracket or a triple-quoted string open, or ends in a backslash.
    static func isIncomplete(_ code: String) -> Bool {
        let characters = Array(code)
        var depth = 0
        var string: (quote: Character, triple: Bool)?
        var index = 0
        func starts(_ text: String, at position: Int) -> Bool {
            position + text.count <= characters.count && String(characters[position..<(position + text.count)]) == text
        }
        while index < characters.count {
            let character = characters[index]
            if let open = string {
                if character == "\\" {
                    index += 2
                } else if open.triple, starts(String(repeating: open.quote, count: 3), at: index) {
                    string = nil
                    index += 3
                } else {
                    if !open.triple && (character == open.quote || character == "\n") { string = nil }
                    index += 1
                }
                continue
            }
            switch character {
            case "#":
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            case "\"", "'":
                let triple = starts(String(repeating: character, count: 3), at: index)
                string = (character, triple)
                index += triple ? 3 : 1
                continue
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            default: break
            }
            index += 1
        }
        return depth > 0 || string?.triple == true || code.hasSuffix("\\")
    }
}
