import Foundation
import Monocle
import MonocleEmulator
import Synchronization
import Testing

/// The controller against the virtual Monocle running Sibyl's own device app.
@Suite(.enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct ControllerTests {
    /// Records the controller's states and notices as they happen.
    final class Observer: Sendable {
        let states = Mutex<[MonocleState]>([])
        let notices = Mutex<[String]>([])
        let onState: @Sendable (MonocleState) async -> Void

        init(onState: @escaping @Sendable (MonocleState) async -> Void = { _ in }) {
            self.onState = onState
        }

        func follow(_ controller: MonocleController) -> Task<Void, Never> {
            Task {
                for await event in controller.events {
                    switch event {
                    case .state(let state):
                        states.withLock { $0.append(state) }
                        await onState(state)
                    case .notice(let text): notices.withLock { $0.append(text) }
                    case .updateFailed(let reason): notices.withLock { $0.append("the firmware update failed: \(reason)") }
                    case .message: break
                    }
                }
            }
        }

        /// Waits for the `count`-th `running` state (the limit is a ceiling against hangs).
        func running(_ count: Int = 1, timeout: Duration = .seconds(180)) async throws -> DeviceInfo {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let runs = states.withLock { $0.compactMap { if case .running(let info) = $0 { info } else { nil } } }
                if runs.count >= count { return runs[count - 1] }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw MonocleError.timeout(waitingFor: "running #\(count) after \(states.withLock { $0.map(\.name) })", after: timeout)
        }
    }

    static func fastOptions() -> MonocleController.Options {
        var options = MonocleController.Options()
        options.connectDelay = .milliseconds(20)
        options.settle = .milliseconds(60)
        options.reconnect = true
        return options
    }

    @Test func theAppIsUploadedOnceAndAReconnectSkipsTheUpload() async throws {
        try await TestGlasses.with { glasses in
            let app = try DeviceApp.sibyl()
            let controller = MonocleController(transport: EmulatorTransport(emulator: glasses), app: app, options: Self.fastOptions())
            let observer = Observer()
            let following = observer.follow(controller)
            let clock = ContinuousClock()
            let started = clock.now
            let serving = Task { await controller.run() }
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
            #expect(observer.states.withLock { $0.contains { if case .uploadingApp = $0 { true } else { false } } })
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }

    @Test func textInAnyScriptIsShownIntact() async throws {
        try await TestGlasses.with { glasses in
            let controller = MonocleController(transport: EmulatorTransport(emulator: glasses), app: try DeviceApp.sibyl(), options: Self.fastOptions())
            let observer = Observer()
            let following = observer.follow(controller)
            let serving = Task { await controller.run() }
            _ = try await observer.running()
            _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
            let answer = "Café crème in Zürich, 日本 und Ελλάδα — "
            try await controller.show(String(repeating: answer, count: 6))
            let frame = try await glasses.waitForScreen { frame in frame.lines.joined(separator: " ").contains("日本 und Ελλάδα") }
            #expect(frame.lines.allSatisfy { $0.count <= 26 })
            try await controller.show("The model is not reachable.", as: .error)
            let error = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("not reachable") }
            #expect(error.texts.contains { $0.color == DisplayFrame.Object.red })
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }

    @Test(arguments: ["enteringRawREPL", "checkingFirmware", "checkingFPGA", "checkingApp", "uploadingApp", "starting", "running"])
    func aDisconnectInAnyStateRecoversOnReconnect(state target: String) async throws {
        try await TestGlasses.with { glasses in
            let controller = MonocleController(transport: EmulatorTransport(emulator: glasses), app: try DeviceApp.sibyl(), options: Self.fastOptions())
            let fired = Mutex(false)
            let observer = Observer { state in
                guard state.name == target, !fired.withLock({ let was = $0; $0 = true; return was }) else { return }
                await glasses.disconnect()
            }
            let following = observer.follow(controller)
            let serving = Task { await controller.run() }
            let info = try await observer.running(target == "running" ? 2 : 1)
            #expect(fired.withLock { $0 })
            #expect(observer.states.withLock { $0.contains { $0.name == "disconnected" } })
            #expect(info.app == (try DeviceApp.sibyl()).version)
            // The app really runs after the recovery.
            _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }

    @Test func theFPGAUpdateReachesCompletionAndSurvivesACorruptedChunk() async throws {
        let image = FPGAImage(data: Data((0..<8_000).map { UInt8(truncatingIfNeeded: ($0 &* 7919) >> 3) }), version: "v23.230.0808")
        try await TestGlasses.with(configure: {
            $0.fpga = "v23.179.1006"
            $0.fpgaAfterUpdate = "v23.230.0808"
        }) { glasses in
            var options = Self.fastOptions()
            options.fpgaImage = image
            let controller = MonocleController(transport: EmulatorTransport(emulator: glasses), app: try DeviceApp.sibyl(), options: options)
            let chunks = image.chunks(maximumWriteLength: 253)
            await glasses.corruptNextWrite(containing: String(chunks[20].prefix(24)))
            let observer = Observer()
            let following = observer.follow(controller)
            let serving = Task { await controller.run() }
            // A ceiling against hangs only: the full suite on two busy cores has held this update
            // back for over 100 s, where alone it takes under a second.
            let info = try await observer.running(timeout: .seconds(600))
            #expect(info.fpga == "v23.230.0808")
            let progress = observer.states.withLock { $0.compactMap { if case .updatingFPGA(let p) = $0 { p } else { nil } } }
            #expect(progress.first == 0)
            #expect(progress.last == 1)
            #expect(progress == progress.sorted())
            #expect(observer.notices.withLock { $0.contains { $0.contains("FPGA chunk 21") } })
            #expect(await glasses.fpgaFlash == image.data + Data("done".utf8))
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }
}
