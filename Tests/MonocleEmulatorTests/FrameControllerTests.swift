import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Synchronization
import Testing

/// The Frame controller and Sibyl's Frame app, against the virtual Frame.
@Suite struct FrameControllerTests {
    /// Collects what a controller reports.
    final class Observer: Sendable {
        let events = Mutex<[FrameEvent]>([])
        let onState: @Sendable (FrameState) async -> Void

        init(onState: @escaping @Sendable (FrameState) async -> Void = { _ in }) {
            self.onState = onState
        }

        func follow(_ controller: FrameController) -> Task<Void, Never> {
            Task {
                for await event in controller.events {
                    self.events.withLock { $0.append(event) }
                    if case .state(let state) = event { await self.onState(state) }
                }
            }
        }

        var states: [FrameState] { events.withLock { $0.compactMap { if case .state(let s) = $0 { s } else { nil } } } }
        var notices: [String] { events.withLock { $0.compactMap { if case .notice(let n) = $0 { n } else { nil } } } }
        var data: [Data] { events.withLock { $0.compactMap { if case .data(let d) = $0 { d } else { nil } } } }

        /// Waits for the `count`-th `.running`; the limit is a ceiling against hangs only.
        func running(_ count: Int = 1, timeout: Duration = .seconds(300)) async throws -> FrameDeviceInfo {
            try await until("running #\(count)", timeout: timeout) {
                let runs = self.states.compactMap { if case .running(let info) = $0 { info } else { nil } }
                return runs.count >= count ? runs[count - 1] : nil
            }
        }

        func until<T>(_ what: String, timeout: Duration = .seconds(300), _ check: () -> T?) async throws -> T {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let value = check() { return value }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw FrameError.timeout(waitingFor: "\(what) after \(states.map(\.name)), notices \(notices)", after: timeout)
        }
    }

    static func fastOptions() -> FrameController.Options {
        var options = FrameController.Options()
        options.signalPause = .milliseconds(30)
        options.replyTimeout = .seconds(20)
        options.acknowledgementTimeout = .seconds(20)
        options.startTimeout = .seconds(60)
        return options
    }

    /// A powered-on virtual Frame with an empty flash, a transport to it and a controller for `app`.
    static func withFrame(
        app: FrameDeviceApp = .sibyl(), mtu: Int = 247, observer: Observer = Observer(), options: FrameController.Options = fastOptions(),
        configure: (inout FrameEmulatorConfiguration) -> Void = { _ in },
        _ body: (FrameEmulator, EmulatorFrameTransport, FrameController, Observer) async throws -> Void
    ) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-controller-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configure(&configuration)
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        try await emulator.powerOn()
        let transport = EmulatorFrameTransport(emulator: emulator, mtu: mtu)
        let controller = FrameController(transport: transport, app: app, options: options)
        let following = observer.follow(controller)
        let serving = Task { await controller.run() }
        do {
            try await body(emulator, transport, controller, observer)
        } catch {
            await controller.stop()
            await emulator.powerOff()
            throw error
        }
        await controller.stop()
        serving.cancel()
        following.cancel()
        await emulator.powerOff()
    }

    static func shownText(_ emulator: FrameEmulator) -> [String] {
        emulator.display.current?.texts ?? []
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
            #expect(observer.states.contains { $0.name == "disconnected" })
        }
    }

    @Test func tapsPhotosAndSpeechComeBackAndAnswersScroll() async throws {
        try await Self.withFrame { emulator, _, controller, observer in
            _ = try await observer.running()
            try await emulator.tap()
            _ = try await observer.until("a tap") { observer.data.contains(Data([SibylFrameApp.Flag.tap])) ? true : nil }

            // Speech: the microphone's samples stream back until the host says stop.
            emulator.setMicrophoneInput(samples: (0..<8000).map { Int16(truncatingIfNeeded: ($0 * 97) % 20000 - 10000) }, sampleRate: 8000)
            try await controller.send(SibylFrameApp.listen())
            _ = try await observer.until("audio") { observer.data.contains { $0.first == SibylFrameApp.Flag.audio } ? true : nil }
            try await Task.sleep(for: .milliseconds(300))
            try await controller.send(SibylFrameApp.stop())
            let audio = try await observer.until("the end of the audio") { () -> Data? in
                var assembler = FrameStreamAssembler.audio()
                for packet in observer.data { if let whole = assembler.add(packet) { return whole } }
                return nil
            }
            #expect(audio.count > 800)

            // A photo: the JPEG the camera holds comes back whole.
            let jpeg = Data([0xFF, 0xD8]) + Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 31) & 0xFE }) + Data([0xFF, 0xD9])
            emulator.setCameraImage(jpeg: jpeg)
            try await controller.send(SibylFrameApp.photo())
            let photo = try await observer.until("the photo") { () -> Data? in
                var assembler = FrameStreamAssembler.photo()
                for packet in observer.data { if let whole = assembler.add(packet) { return whole } }
                return nil
            }
            #expect(photo == jpeg)

            // A long answer is wrapped into lines that fit; the first six are shown, then it scrolls.
            let answer = (1...12).map { "Line number \($0) of a long answer that needs wrapping." }.joined(separator: " ")
            try await controller.send(SibylFrameApp.text(answer))
            let lines = SibylFrameApp.wrap(answer)
            #expect(lines.count > 6)
            _ = try await observer.until("the answer") { Self.shownText(emulator).first == lines[0] ? true : nil }
            #expect(Self.shownText(emulator) == Array(lines.prefix(6)))
            _ = try await observer.until("a scroll", timeout: .seconds(120)) { Self.shownText(emulator).first == lines[1] ? true : nil }

            try await controller.send(SibylFrameApp.text("The model is not reachable.", colour: .red))
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
        var options = Self.fastOptions()
        options.replyTimeout = .seconds(2)
        try await Self.withFrame(options: options, configure: { $0.notificationSlotTime = .milliseconds(4) }) { emulator, _, controller, observer in
            _ = try await observer.running()
            for file in FrameDeviceApp.sibyl().files {
                #expect(emulator.readFile(file.name) == file.contents, "\(file.name) on the flash")
            }
            let jpeg = Data([0xFF, 0xD8]) + Data((0..<6000).map { UInt8(truncatingIfNeeded: $0 * 7) & 0xFE }) + Data([0xFF, 0xD9])
            emulator.setCameraImage(jpeg: jpeg)
            try await controller.send(SibylFrameApp.photo())
            let photo = try await observer.until("the photo") { () -> Data? in
                var assembler = FrameStreamAssembler.photo()
                for packet in observer.data { if let whole = assembler.add(packet) { return whole } }
                return nil
            }
            #expect(photo == jpeg)
            try await controller.send(SibylFrameApp.text(String(repeating: "A long answer over a busy link. ", count: 30)))
            _ = try await observer.until("the answer") { Self.shownText(emulator).first?.hasPrefix("A long answer") == true ? true : nil }
        }
    }

    @Test(arguments: ["interrupting", "checkingFirmware", "checkingApp", "uploadingApp", "starting", "running"])
    func aDisconnectInAnyStateRecoversOnReconnect(state target: String) async throws {
        let fired = Mutex(false)
        let transportBox = Mutex<EmulatorFrameTransport?>(nil)
        let observer = Observer { state in
            guard state.name == target, !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
            transportBox.withLock { $0 }?.drop(reason: "lost in \(target)")
        }
        try await Self.withFrame(observer: observer) { emulator, transport, controller, observer in
            transportBox.withLock { $0 = transport }
            let info = try await observer.running(target == "running" ? 2 : 1)
            #expect(fired.withLock { $0 } || target == "interrupting")
            #expect(info.app == FrameDeviceApp.sibyl().version)
            // The app really runs after the recovery: it acknowledges a message and draws it.
            try await controller.send(SibylFrameApp.text("Back again."))
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
