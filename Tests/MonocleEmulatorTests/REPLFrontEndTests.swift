import Foundation
@testable import MonocleEmulator
import Testing

@Suite(.timeLimit(.minutes(10))) struct REPLFrontEndTests {
    typealias Action = REPLFrontEnd.Action

    func output(_ text: String) -> Action { .output(Array(text.utf8)) }
    let raw = "raw REPL; CTRL-B to exit\r\n>"
    let friendly = "MicroPython v1.20.0-379-ga18d62e06 on 2023-09-05; Monocle on nRF52832\r\nType \"help()\" for more information.\r\n>>> "

    /// A front end whose boot program is running.
    func booted() -> REPLFrontEnd {
        var repl = REPLFrontEnd()
        _ = repl.interpreterStarted(afterSoftReset: false)
        return repl
    }

    @Test func firstConnectionInterruptsTheAppAndEntersRawMode() {
        var repl = booted()
        // ^C ^C ^A in one write while main.py runs: the first ^C interrupts, the rest wait in the ring.
        #expect(repl.receive([3, 3, 1]) == [.interrupt])
        let actions = repl.interpreterPrinted(Array("Traceback (most recent call last):\nKeyboardInterrupt: \n\u{1E}B".utf8))
        #expect(actions == [
            output("Traceback (most recent call last):\r\nKeyboardInterrupt: \r\n"),
            output(friendly),
            output("\r\n>>> "),
            output("\r\n" + raw),
        ])
        #expect(repl.mode == .raw)
    }

    @Test func rawModeSurvivesASoftResetSoTheNextInterruptPrintsTwoBanners() {
        var repl = booted()
        _ = repl.receive([3, 3, 1])
        _ = repl.interpreterPrinted(Array("\u{1E}B".utf8))
        #expect(repl.receive([4]) == [output("OK\r\n"), .softReset])
        #expect(repl.interpreterStarted(afterSoftReset: true) == [output("MPY: soft reboot\r\n")])
        #expect(repl.receive([3, 3, 1]) == [.interrupt])
        let actions = repl.interpreterPrinted(Array("KeyboardInterrupt: \n\u{1E}B".utf8))
        #expect(actions == [output("KeyboardInterrupt: \r\n"), output(raw), output(raw)])
    }

    @Test func rawCommandsAreFramedByOKAndPrompt() {
        var repl = booted()
        _ = repl.interpreterPrinted(Array("\u{1E}B".utf8))
        _ = repl.receive([1])
        #expect(repl.receive(Array("print(1)".utf8) + [4]) == [output("OK"), .execute("print(1)", raw: true)])
        // Bytes sent while the command runs are kept and read afterwards.
        #expect(repl.receive(Array("x".utf8)).isEmpty)
        #expect(repl.interpreterPrinted(Array("1\n\u{4}\u{4}\u{1E}E".utf8)) == [output("1\r\n\u{4}\u{4}"), output(">")])
        #expect(repl.receive([4]) == [output("OK"), .execute("x", raw: true)])
    }

    @Test func theReceiveRingDropsWhatDoesNotFit() {
        var repl = booted()
        _ = repl.receive(Array(repeating: UInt8(ascii: "a"), count: 1_000))
        _ = repl.receive(Array(repeating: UInt8(ascii: "b"), count: 100))
        #expect(repl.dropped == 76)
    }

    @Test func ctrlBackslashRebootsIntoSafeMode() {
        var repl = booted()
        #expect(repl.receive([0x41, 0x1C]) == [.safeModeReset])
    }

    @Test func friendlyModeEchoesAndRunsLines() {
        var repl = booted()
        _ = repl.interpreterPrinted(Array("\u{1E}B".utf8))
        #expect(repl.receive(Array("1+1".utf8)) == [output("1"), output("+"), output("1")])
        #expect(repl.receive([13]) == [output("\r\n"), .execute("1+1", raw: false)])
        #expect(repl.interpreterPrinted(Array("2\n\u{1E}E".utf8)) == [output("2\r\n"), output(">>> ")])
    }

    /// Typed one key at a time, as a terminal sends them; the actions of the whole line.
    func type(_ text: String, into repl: inout REPLFrontEnd) -> [Action] {
        Array(text.utf8).flatMap { repl.receive([$0]) }
    }

    @Test func aCompoundStatementContinuesUntilABlankLine() {
        var repl = booted()
        _ = repl.interpreterPrinted(Array("\u{1E}B".utf8))
        #expect(type("for i in range(2):\r", into: &repl).last == output("\r\n... "))
        #expect(type("  print(i)\r", into: &repl).last == output("\r\n... "))
        #expect(type("\r", into: &repl) == [output("\r\n"), .execute("for i in range(2):\n  print(i)", raw: false)])
        _ = repl.interpreterPrinted(Array("0\n1\n\u{1E}E".utf8))
        // An open bracket continues until it is closed, without a blank line.
        #expect(type("x = (1,\r", into: &repl).last == output("\r\n... "))
        #expect(type("2)\r", into: &repl) == [output("2"), output(")"), output("\r\n"), .execute("x = (1,\n2)", raw: false)])
        #expect(REPLFrontEnd.isIncomplete("s = '''a\nb"))
        #expect(!REPLFrontEnd.isIncomplete("s = '(' # (\n"))
    }

    @Test func pasteModeTakesAWholeProgramUntilCtrlD() {
        var repl = booted()
        _ = repl.interpreterPrinted(Array("\u{1E}B".utf8))
        #expect(repl.receive([0x05]) == [output("\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")])
        #expect(type("a = 1\rif a:\r", into: &repl).last == output("\r\n=== "))
        #expect(type("    print(a)\r\u{04}", into: &repl).suffix(2) == [output("\r\n"), .executePasted("a = 1\nif a:\n    print(a)\n")])
        _ = repl.interpreterPrinted(Array("1\n\u{1E}E".utf8))
        // Ctrl-C leaves paste mode without running anything.
        _ = repl.receive([0x05])
        #expect(type("print(2)\u{03}", into: &repl).last == output("\r\n>>> "))
        #expect(repl.phase == .idle)
    }
}
