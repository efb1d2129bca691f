import Foundation
import Glasses
import Monocle
import MonocleEmulator
import Synchronization
import Testing

/// A connection with Monocle's driver against the virtual Monocle running Sibyl's own device app.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct MonocleConnectionTests {
    /// A connection to `transport` keeping `app` (Sibyl's) on the glasses.
    static func connection(
        _ transport: any GlassesTransport, app: DeviceApp? = nil, options: GlassesConnection.Options = .fast, driver: MonocleDriver.Options = .fast
    ) throws -> GlassesConnection {
        GlassesConnection(transport: transport, driver: MonocleDriver(app: try app ?? DeviceApp.sibyl(), options: driver), options: options)
    }

    /// Where a lost link is tested: each step of bringing the app up.
    enum Step: String, CaseIterable, Sendable {
        case enteringRawREPL, checkingFirmware, checkingFPGA, checkingApp, uploadingApp, starting, running

        func matches(_ phase: GlassesPhase) -> Bool {
            switch (self, phase) {
            case (.enteringRawREPL, .preparing(.enteringRawREPL)), (.checkingFirmware, .preparing(.checkingFirmware)),
                 (.checkingFPGA, .preparing(.checkingFPGA)), (.checkingApp, .preparing(.checkingApp)), (.uploadingApp, .uploadingApp),
                 (.starting, .starting), (.running, .running):
                true
            default:
                false
            }
        }
    }

    @Test func theAppIsUploadedOnceAndAReconnectSkipsTheUpload() async throws {
        try await TestGlasses.with { glasses in
            let app = try DeviceApp.sibyl()
            let clock = ContinuousClock()
            let started = clock.now
            try await Self.connection(EmulatorTransport(emulator: glasses), app: app).serve { observer in
                let first = try await observer.running()
                let elapsed = clock.now - started
                let writes = await glasses.writes[.serial] ?? 0
                #expect(first.uploaded)
                #expect(first.uploadTime != nil)
                #expect(first.firmware == "v23.248.0754")
                #expect(first.fpga == "v23.230.0808")
                #expect(first.app == app.version)
                print("[monocle] upload of Sibyl's device app (\(app.files.count) files, \(app.byteCount) bytes) at MTU 253: \(writes) serial writes, connect to running in \(elapsed)")
                // The app greets and sends rdy: once it is ready.
                _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
                #expect(await glasses.droppedSerialBytes == 0)

                await glasses.resetWriteCounts()
                await glasses.disconnect()
                let second = try await observer.running(2)
                #expect(!second.uploaded)
                #expect(second.uploadTime == nil)
                #expect(await glasses.writes[.serial] ?? 0 < 10)
                #expect(observer.states.contains { if case .uploadingApp = $0 { true } else { false } })
            }
        }
    }

    @Test func textInAnyScriptIsShownIntact() async throws {
        try await TestGlasses.with { glasses in
            let connection = try Self.connection(EmulatorTransport(emulator: glasses))
            try await connection.serve { observer in
                _ = try await observer.running()
                _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
                let answer = "Café crème in Zürich, 日本 und Ελλάδα — "
                try await connection.show(String(repeating: answer, count: 6))
                let frame = try await glasses.waitForScreen { frame in frame.lines.joined(separator: " ").contains("日本 und Ελλάδα") }
                #expect(frame.lines.allSatisfy { $0.count <= 26 })
                try await connection.show("The model is not reachable.", isError: true)
                let error = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("not reachable") }
                #expect(error.texts.contains { $0.color == DisplayFrame.Object.red })
            }
        }
    }

    @Test(arguments: Step.allCases)
    func aDisconnectInAnyStateRecoversOnReconnect(at step: Step) async throws {
        try await TestGlasses.with { glasses in
            let fired = Mutex(false)
            let observer = ConnectionObserver { state in
                guard step.matches(state.phase), !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
                await glasses.disconnect()
            }
            try await Self.connection(EmulatorTransport(emulator: glasses)).serve(observer: observer) { observer in
                let info = try await observer.running(step == .running ? 2 : 1)
                #expect(fired.withLock { $0 })
                #expect(observer.states.contains { if case .disconnected = $0 { true } else { false } })
                #expect(info.app == (try DeviceApp.sibyl()).version)
                // The app really runs after the recovery.
                _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
            }
        }
    }

    @Test func theFPGAUpdateReachesCompletionAndSurvivesACorruptedChunk() async throws {
        let image = FPGAImage(data: Data((0..<8_000).map { UInt8(truncatingIfNeeded: ($0 &* 7919) >> 3) }), version: "v23.230.0808")
        try await TestGlasses.with(configure: {
            $0.fpga = "v23.179.1006"
            $0.fpgaAfterUpdate = "v23.230.0808"
        }) { glasses in
            var driver = MonocleDriver.Options.fast
            driver.fpgaImage = image
            let chunks = image.chunks(maximumWriteLength: 253)
            await glasses.corruptNextWrite(containing: String(chunks[20].prefix(24)))
            try await Self.connection(EmulatorTransport(emulator: glasses), driver: driver).serve { observer in
                // A ceiling against hangs only: the full suite on two busy cores has held this update
                // back for over 100 s, where alone it takes under a second.
                let info = try await observer.running(timeout: .seconds(600))
                #expect(info.fpga == "v23.230.0808")
                let progress = observer.states.compactMap { if case .updatingFPGA(let p) = $0 { p } else { nil } }
                #expect(progress.first == 0)
                #expect(progress.last == 1)
                #expect(progress == progress.sorted())
                #expect(observer.notices.contains { $0.contains("FPGA chunk 21") })
                #expect(await glasses.fpgaFlash == image.data + Data("done".utf8))
            }
        }
    }
}
