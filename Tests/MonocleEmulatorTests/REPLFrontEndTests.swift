import Foundation
@testable import MonocleEmulator
import Testing

@Suite struct REPLFrontEndTests {
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
}
