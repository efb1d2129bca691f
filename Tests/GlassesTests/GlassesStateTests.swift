import Foundation
import Glasses
import SibylCore
import Testing

/// The state as the web page and the terminal read it, and how each channel's writes go.
@Suite(.timeLimit(.minutes(10)))
struct GlassesStateTests {
    @Test func eachKindDescribesItsRunningGlassesAsBefore() {
        let monocle = GlassesDeviceInfo(firmware: "v23.248.0754", fpga: "v23.230.0808", app: "sha256:0123456789abcdef", uploaded: true, maximumWriteLength: 253)
        #expect(GlassesState(kind: .monocle, phase: .running(monocle)).description == "running (firmware v23.248.0754, FPGA v23.230.0808, app sha256:01234567…)")
        let frame = GlassesDeviceInfo(firmware: "v25.080.0838", app: "sha256:0123456789abcdef", uploaded: false, maximumWriteLength: 244)
        #expect(GlassesState(kind: .frame, phase: .running(frame)).description == "running (firmware v25.080.0838, app sha256:01234567…, MTU 247)")
        #expect(frame.mtu == 247)
    }

    @Test func theStepsReadAsTheyDid() {
        let descriptions = [
            GlassesPhase.disconnected(reason: nil), .disconnected(reason: "out of range"), .connecting, .preparing(.enteringRawREPL(attempt: 1)),
            .preparing(.enteringRawREPL(attempt: 2)), .preparing(.interrupting), .preparing(.checkingFirmware), .preparing(.checkingFPGA),
            .preparing(.checkingApp), .updatingFirmware(progress: 0.5), .updatingFPGA(progress: 0.25), .uploadingApp(file: "main.py", index: 0, count: 2),
            .starting,
        ].map { GlassesState(kind: .monocle, phase: $0).description }
        #expect(descriptions == [
            "disconnected", "disconnected (out of range)", "connecting", "entering the raw REPL", "entering the raw REPL (attempt 2)",
            "stopping what runs on the glasses", "checking the firmware version", "checking the FPGA version", "checking the device app",
            "updating the firmware: 50 %", "updating the FPGA: 25 %", "uploading main.py (1/2)", "starting the device app",
        ])
    }

    @Test func runningAndDisconnectedArePatternsNotNames() {
        let info = GlassesDeviceInfo(firmware: nil, app: "x", uploaded: false, maximumWriteLength: 20)
        #expect(GlassesState(kind: .frame, phase: .running(info)).isRunning)
        #expect(GlassesState(kind: .frame, phase: .running(info)).deviceInfo == info)
        #expect(!GlassesState(kind: .frame, phase: .starting).isRunning)
        #expect(GlassesState(kind: .monocle, phase: .disconnected(reason: "x")).isDisconnected)
        #expect(!GlassesState(kind: .monocle, phase: .connecting).isDisconnected)
    }

    @Test func monoclesWritesAreSplitAndFramesGoWhole() throws {
        let bytes = Data((0..<10).map { UInt8($0) })
        #expect(try GlassesChannel.serial.writes(of: bytes, maximumWriteLength: 4) == [Data([0, 1, 2, 3]), Data([4, 5, 6, 7]), Data([8, 9])])
        #expect(try GlassesChannel.data.writes(of: bytes, maximumWriteLength: 20) == [bytes])
        #expect(try GlassesChannel.frame.writes(of: bytes, maximumWriteLength: 10) == [bytes])
        #expect(throws: GlassesError.self) { try GlassesChannel.frame.writes(of: bytes, maximumWriteLength: 9) }
        #expect(GlassesKind.monocle.channels == [.serial, .data])
        #expect(GlassesKind.frame.channels == [.frame])
    }
}

/// One reply awaited at a time: given, timed out, failed, or replaced.
@Suite(.timeLimit(.minutes(10)))
struct ReplyWaiterTests {
    @Test func aReplyOfferedAfterTheActionEndsTheWait() async throws {
        let waiter = ReplyWaiter<String>()
        #expect(!waiter.offer("nobody waits"))
        let reply = try await waiter.wait(for: "the answer", timeout: .seconds(30)) { waiter.offer("42") }
        #expect(reply == "42")
        #expect(!waiter.isWaiting)
    }

    @Test func aTimeoutOrAFailureEndsItWithAnError() async throws {
        let waiter = ReplyWaiter<Int>()
        await #expect(throws: GlassesError.timeout(waitingFor: "nothing", after: .milliseconds(1))) {
            try await waiter.wait(for: "nothing", timeout: .milliseconds(1))
        }
        await #expect(throws: GlassesError.disconnected("gone")) {
            try await waiter.wait(for: "a lost cause", timeout: .seconds(30)) { waiter.fail(GlassesError.disconnected("gone")) }
        }
        await #expect(throws: GlassesError.transport("refused")) {
            try await waiter.wait(for: "an action that fails", timeout: .seconds(30)) { throw GlassesError.transport("refused") }
        }
    }
}
