import Foundation
import Glasses
import Monocle
import MonocleEmulator
import Testing

/// The virtual Monocle's REPL, byte for byte, with a real MicroPython behind it.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct EmulatorREPLTests {
    let raw = "raw REPL; CTRL-B to exit\r\n>"

    /// A phone connected to glasses without a main.py (the REPL is idle at once), in raw mode.
    func inRawMode(_ glasses: MonocleEmulator, writeLength: Int = 253) async throws -> (EmulatorTransport, TransportRecorder) {
        let phone = EmulatorTransport(emulator: glasses, maximumWriteLength: writeLength)
        let recorder = TransportRecorder(phone)
        try await phone.connect()
        try await phone.write(Data(RawREPL.enter), to: .serial)
        _ = try await recorder.waitForSerial(raw)
        return (phone, recorder)
    }

    @Test func rawREPLRunsCommandsAndReportsErrorsLikeTheFirmware() async throws {
        try await TestGlasses.with { glasses in
            let (phone, recorder) = try await inRawMode(glasses)
            await recorder.clear()
            try await phone.write(RawREPL.command("import device;print(device.VERSION);del(device)"), to: .serial)
            #expect(try await recorder.waitForSerial("\u{4}\u{4}>") == "OKv23.248.0754\r\n\u{4}\u{4}>")
            await recorder.clear()
            try await phone.write(RawREPL.command("import fpga;print(fpga.read(2,12));del(fpga)"), to: .serial)
            #expect(try await recorder.waitForSerial("\u{4}\u{4}>") == "OKb'v23.230.0808'\r\n\u{4}\u{4}>")
            await recorder.clear()
            try await phone.write(RawREPL.command("print(UNDEFINED)"), to: .serial)
            let error = try await recorder.waitForSerial("\u{4}>")
            #expect(error == "OK\u{4}Traceback (most recent call last):\r\n  File \"<stdin>\", line 1, in <module>\r\nNameError: name 'UNDEFINED' isn't defined\r\n\u{4}>")
        }
    }

    @Test func softResetRunsMainAgainAndAnInterruptedAppDropsIntoRawMode() async throws {
        let main = "import display\nprint('app started')\nwhile True:\n    display.show(display.Text('hi', 0, 0, display.WHITE))\n"
        try await TestGlasses.with(files: ["main.py": main]) { glasses in
            let phone = EmulatorTransport(emulator: glasses)
            let recorder = TransportRecorder(phone)
            try await phone.connect()
            _ = try await glasses.waitForScreen { $0.lines == ["hi"] }
            try await phone.write(Data(RawREPL.enter), to: .serial)
            let first = try await recorder.waitForSerial(raw)
            #expect(first.contains("KeyboardInterrupt"))
            await recorder.clear()
            try await phone.write(Data(RawREPL.softReset), to: .serial)
            _ = try await recorder.waitForSerial("app started")
            #expect(await recorder.serialText.hasPrefix("OK\r\nMPY: soft reboot\r\n"))
            // Raw mode survived the soft reset: the interrupt lands in raw mode and ^A greets again.
            await recorder.clear()
            try await phone.write(Data(RawREPL.enter), to: .serial)
            let second = try await recorder.waitForSerial(raw + raw)
            #expect(second.contains("KeyboardInterrupt"))
        }
    }

    /// The phone's retry (^C ^C ^A) can land at any moment of a command: while it runs, as it
    /// ends, or while the reply is written. Whatever the moment, the REPL answers again.
    @Test func anInterruptAtAnyMomentNeverWedgesTheREPL() async throws {
        try await TestGlasses.with { glasses in
            let (phone, recorder) = try await inRawMode(glasses)
            for round in 0..<40 {
                await recorder.clear()
                // Odd rounds interrupt a command; even ones a soft reset, as the interpreter restarts
                // and connects to the emulator.
                try await phone.write(round % 2 == 1 ? RawREPL.command("import device;print(device.VERSION);del(device)") : Data(RawREPL.softReset), to: .serial)
                // The moment of the interrupt (0 to 78 ms into the command) is what this test varies.
                try await Task.sleep(for: .microseconds(round * 2_000))
                try await phone.write(Data(RawREPL.enter), to: .serial)
                _ = try await recorder.waitForSerial(raw)
                // Still a working REPL afterwards. A second banner may yet come (the ^A waited while
                // the ^C was acted on), but before the reply to what is written after it: the reply
                // comes last, after nothing or after (the end of) a banner's prompt.
                await recorder.clear()
                try await phone.write(RawREPL.command("print(6*7)"), to: .serial)
                let reply = try await recorder.waitForSerial("OK42\r\n\u{4}\u{4}>")
                #expect(reply == "OK42\r\n\u{4}\u{4}>" || reply.hasSuffix(">OK42\r\n\u{4}\u{4}>"), "\(reply.debugDescription)")
            }
        }
    }

    @Test func notificationsNeverExceedTheWriteLength() async throws {
        try await TestGlasses.with(configure: { $0.maximumWriteLength = 20 }) { glasses in
            let (phone, recorder) = try await inRawMode(glasses, writeLength: 20)
            try await phone.write(RawREPL.command("print('x' * 100)"), to: .serial)
            _ = try await recorder.waitForSerial("\u{4}\u{4}>")
            let sizes = await recorder.events.compactMap { event -> Int? in
                if case .received(.serial, let bytes) = event { return bytes.count } else { return nil }
            }
            #expect(sizes.allSatisfy { $0 <= 20 })
            #expect(sizes.contains(20))
        }
    }
}
