import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Glasses
import Synchronization
import Testing

/// A connection with Frame's driver and Sibyl's Frame app, against the virtual Frame.
@Suite(.timeLimit(.minutes(10))) struct FrameConnectionTests {
    /// Where a lost link is tested: each step of bringing the app up.
    enum Step: String, CaseIterable, Sendable {
        case interrupting, checkingFirmware, checkingApp, uploadingApp, starting, running

        func matches(_ phase: GlassesPhase) -> Bool {
            switch (self, phase) {
            case (.interrupting, .preparing(.interrupting)), (.checkingFirmware, .preparing(.checkingFirmware)), (.checkingApp, .preparing(.checkingApp)),
                 (.uploadingApp, .uploadingApp), (.starting, .starting), (.running, .running):
                true
            default:
                false
            }
        }
    }

    /// A powered-on virtual Frame with an empty flash, a transport to it, and a connection with a
    /// driver for `app`; without the wearer's tap logic, what the app sends comes out as `appData`.
    static func withFrame(
        app: FrameDeviceApp = .sibyl(), mtu: Int = 247, observer: ConnectionObserver = ConnectionObserver(), options: FrameDriver.Options = .fast,
        connection connectionOptions: GlassesConnection.Options = .fast, configure: (inout FrameEmulatorConfiguration) -> Void = { _ in },
        _ body: (FrameEmulator, EmulatorFrameTransport, FrameDriver, ConnectionObserver) async throws -> Void
    ) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-connection-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configure(&configuration)
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        try await emulator.powerOn()
        let transport = EmulatorFrameTransport(emulator: emulator, mtu: mtu)
        let driver = FrameDriver(app: app, options: options, wearer: nil)
        let connection = GlassesConnection(transport: transport, driver: driver, options: connectionOptions)
        do {
            try await connection.serve(observer: observer) { observer in try await body(emulator, transport, driver, observer) }
        } catch {
            await emulator.powerOff()
            throw error
        }
        await emulator.powerOff()
    }

    static func shownText(_ emulator: FrameEmulator) -> [String] {
        emulator.display.current?.texts ?? []
    }

    /// What the app sent so far, in order.
    final class AppData: Sendable {
        private let packets = Mutex<[Data]>([])
        private let reading = Mutex<Task<Void, Never>?>(nil)

        init(_ driver: FrameDriver) {
            let task = Task { [weak self] in
                for await packet in driver.appData { self?.packets.withLock { $0.append(packet) } }
            }
            reading.withLock { $0 = task }
        }

        deinit { reading.withLock { $0?.cancel() } }

        var all: [Data] { packets.withLock { $0 } }

        /// The first whole stream `assembler` makes of the packets so far.
        func stream(_ assembler: FrameStreamAssembler) -> Data? {
            var assembler = assembler
            for packet in all { if let whole = assembler.add(packet) { return whole } }
            return nil
        }
    }

    @Test func theAppIsUploadedOnceAndAReconnectSkipsTheUpload() async throws {
        try await Self.withFrame { emulator, transport, _, observer in
            let first = try await observer.running()
            #expect(first.uploaded)
            #expect(first.firmware == "v25.080.0838")
            #expect(first.mtu == 247)
            #expect(first.uploadWrites > 0)
            let app = FrameDeviceApp.sibyl()
            for file in app.files {
                #expect(emulator.readFile(file.name) == file.contents, "\(file.name) on the flash")
            }
            _ = try await observer.until("the idle screen") { Self.shownText(emulator).contains("Tap to ask") ? true : nil }
            print("[frame] upload of Sibyl's Frame app (\(app.files.count) files, \(app.byteCount) bytes) at MTU 247: \(first.uploadWrites) writes in \(first.uploadTime ?? .zero)")

            transport.drop(reason: "walked out of range")
            let second = try await observer.running(2)
            #expect(!second.uploaded)
            #expect(observer.states.contains { if case .disconnected = $0 { true } else { false } })
        }
    }

    @Test func tapsPhotosAndSpeechComeBackAndAnswersScroll() async throws {
        try await Self.withFrame { emulator, _, driver, observer in
            let data = AppData(driver)
            _ = try await observer.running()
            try await emulator.tap()
            // The tap flag, then the moment on Frame's clock (4 bytes).
            _ = try await observer.until("a tap") { data.all.contains { $0.first == SibylFrameApp.Flag.tap && $0.count == 5 } ? true : nil }

            // Speech: the microphone's samples stream back until the host says stop.
            emulator.setMicrophoneInput(samples: (0..<8000).map { Int16(truncatingIfNeeded: ($0 * 97) % 20000 - 10000) }, sampleRate: 8000)
            try await driver.send(SibylFrameApp.listen())
            // Stopped once more than 800 samples are in: the rest and the end flag follow.
            _ = try await observer.until("audio") { data.all.filter { $0.first == SibylFrameApp.Flag.audio }.reduce(0) { $0 + $1.count - 1 } > 800 ? true : nil }
            try await driver.send(SibylFrameApp.stop())
            let audio = try await observer.until("the end of the audio") { data.stream(.audio()) }
            #expect(audio.count > 800)

            // A photo: the JPEG the camera holds comes back whole.
            let jpeg = Data([0xFF, 0xD8]) + Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 31) & 0xFE }) + Data([0xFF, 0xD9])
            emulator.setCameraImage(jpeg: jpeg)
            try await driver.send(SibylFrameApp.photo())
            let photo = try await observer.until("the photo") { data.stream(.photo()) }
            #expect(photo == jpeg)

            // A long answer is wrapped into lines that fit; the first six are shown, then it scrolls.
            let answer = (1...12).map { "Line number \($0) of a long answer that needs wrapping." }.joined(separator: " ")
            try await driver.send(SibylFrameApp.text(answer))
            let lines = SibylFrameApp.wrap(answer)
            #expect(lines.count > 6)
            _ = try await observer.until("the answer") { Self.shownText(emulator).first == lines[0] ? true : nil }
            #expect(Self.shownText(emulator) == Array(lines.prefix(6)))
            _ = try await observer.until("a scroll", timeout: .seconds(120)) { Self.shownText(emulator).first == lines[1] ? true : nil }

            try await driver.send(SibylFrameApp.text("The model is not reachable.", colour: .red))
            _ = try await observer.until("the error in red") {
                emulator.display.current?.drawings.contains { "\($0)".contains("not reachable") && "\($0)".contains("RED") } == true ? true : nil
            }
        }
    }

    @Test func aBusyRadioLosesNothing() async throws {
        // Each notification holds the radio's single slot for 4 ms, as a slow connection would:
        // the app's sends must wait and try again, and every acknowledgement and chunk arrive.
        // A print that finds the slot taken is lost (as on Frame): the upload then writes that
        // file again from its start, and the files still arrive whole.
        var options = FrameDriver.Options.fast
        options.replyTimeout = .seconds(2)
        try await Self.withFrame(options: options, configure: { $0.notificationSlotTime = .milliseconds(4) }) { emulator, _, driver, observer in
            let data = AppData(driver)
            _ = try await observer.running()
            for file in FrameDeviceApp.sibyl().files {
                #expect(emulator.readFile(file.name) == file.contents, "\(file.name) on the flash")
            }
            let jpeg = Data([0xFF, 0xD8]) + Data((0..<6000).map { UInt8(truncatingIfNeeded: $0 * 7) & 0xFE }) + Data([0xFF, 0xD9])
            emulator.setCameraImage(jpeg: jpeg)
            try await driver.send(SibylFrameApp.photo())
            let photo = try await observer.until("the photo") { data.stream(.photo()) }
            #expect(photo == jpeg)
            try await driver.send(SibylFrameApp.text(String(repeating: "A long answer over a busy link. ", count: 30)))
            _ = try await observer.until("the answer") { Self.shownText(emulator).first?.hasPrefix("A long answer") == true ? true : nil }
        }
    }

    @Test(arguments: Step.allCases)
    func aDisconnectInAnyStateRecoversOnReconnect(at step: Step) async throws {
        let fired = Mutex(false)
        let transportBox = Mutex<EmulatorFrameTransport?>(nil)
        let observer = ConnectionObserver { state in
            guard step.matches(state.phase), !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            transportBox.withLock { $0 }?.drop(reason: "lost in \(step)")
        }
        try await Self.withFrame(observer: observer) { emulator, transport, driver, observer in
            transportBox.withLock { $0 = transport }
            let info = try await observer.running(step == .running ? 2 : 1)
            #expect(fired.withLock { $0 } || step == .interrupting)
            #expect(info.app == FrameDeviceApp.sibyl().version)
            // The app really runs after the recovery: it acknowledges a message and draws it.
            try await driver.send(SibylFrameApp.text("Back again."))
            _ = try await observer.until("the text after recovering") { Self.shownText(emulator).contains("Back again.") ? true : nil }
        }
    }

    @Test func anAppThatFailsToStartSaysWhyWithTheLuaError() async throws {
        let broken = try FrameDeviceApp(
            files: [FrameDeviceApp.File(name: "main.lua", contents: Data("local x = nil\nx.field = 1\n".utf8))],
            entry: "main", readyLine: "ready"
        )
        try await Self.withFrame(app: broken) { _, _, _, observer in
            let notice = try await observer.until("the failure") { observer.notices.first { $0.contains("giving up") } }
            #expect(notice.contains("main.lua") && notice.contains(":2:"), "\(notice)")
            #expect(notice.contains("attempt to index a nil value"), "\(notice)")
        }
    }
}
