import Foundation
import Glasses
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SibylApp
import SibylTestSupport
import Testing
@testable import SibylServer

/// Installing firmware and FPGA images from the browser: the upload checked and kept, the relay
/// that names it installing it, and the one progress the page shows across both steps.
@Suite("Glasses updates over the API", .timeLimit(.minutes(10)), .serialized)
struct GlassesUpdateRoutesTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SecureDFUTests/Fixtures/dfu")

    static func package() throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent("monocle-firmware-test.zip"))
    }

    @Test func anUploadIsCheckedThenInstalledByTheRelayThatNamesIt() async throws {
        try await withServerFixture(testing: .live) { fixture in
            func stage(_ build: (inout MultipartBody) -> Void) async throws -> (HTTPResponse.Status, [String: Any]) {
                var form = MultipartBody()
                build(&form)
                return try await fixture.client.execute(uri: "/api/v1/glasses/updates", method: .post, headers: form.headers, body: form.buffer) { response in
                    (response.status, response.object)
                }
            }
            // What cannot be installed is refused with words the person can act on.
            let notAZip = try await stage { $0.file("firmware", filename: "firmware.zip", contentType: "application/zip", Data("hello".utf8)) }
            #expect(notAZip.0 == .unprocessableContent)
            #expect((notAZip.1["error"] as? [String: Any])?["message"] as? String == "This is not a Nordic DFU package (a zip from `nrfutil pkg generate`): it is not a zip file.")
            let noVersion = try await stage { $0.file("fpga", filename: "fpga.bin", contentType: "application/octet-stream", Data([1, 2, 3])) }
            #expect(noVersion.0 == .unprocessableContent)
            let frameFPGA = try await stage {
                $0.field("kind", "frame")
                $0.file("fpga", filename: "fpga.bin", contentType: "application/octet-stream", Data([1, 2, 3]))
                $0.field("fpgaVersion", "v23.230.0808")
            }
            #expect((frameFPGA.1["error"] as? [String: Any])?["message"] as? String == "Frame has no FPGA image to write: the FPGA image is for Monocle.")
            #expect(try await stage { $0.field("kind", "monocle") }.0 == .unprocessableContent, "nothing to install")

            let package = try Self.package()
            let staged = try await stage {
                $0.field("kind", "monocle")
                $0.file("firmware", filename: "monocle-firmware-test.zip", contentType: "application/zip", package)
                $0.file("fpga", filename: "monocle-fpga-v23.300.0001.bin", contentType: "application/octet-stream", Data(repeating: 0x5A, count: 4_000))
                $0.field("fpgaVersion", "v23.300.0001")
            }
            #expect(staged.0 == .created)
            let firmware = try #require(staged.1["firmware"] as? [String: Any])
            #expect(firmware["version"] as? String == "v23.300.1200", "the version is read from the image")
            #expect(firmware["bytes"] as? Int == 18_000)
            #expect(firmware["signed"] as? Bool == true)
            #expect((staged.1["fpga"] as? [String: Any])?["version"] as? String == "v23.300.0001")
            let id = try #require(staged.1["id"] as? String)

            // The relay that names it installs it: its link shows the install from the start…
            let port = try #require(fixture.client.port)
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay?update=\(id)", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    guard case .binary = frame else { continue }
                    try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                        let update = response.array.first?["update"] as? [String: Any]
                        #expect(update?["firmware"] as? String == "v23.300.1200")
                        #expect(update?["fpga"] as? String == "v23.300.0001")
                        #expect(update?["outcome"] as? String == "running")
                        #expect(update?["progress"] as? Double == 0)
                    }
                    return
                }
            }
            try await eventually { fixture.server.state.glasses.all.isEmpty }
            // …and takes it: a relay naming it again serves the glasses without it.
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay?update=\(id)", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    guard case .binary = frame else { continue }
                    try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                        #expect(response.array.first?["kind"] as? String == "relay")
                        #expect(response.array.first?["update"] == nil)
                    }
                    return
                }
            }
            try await eventually { fixture.server.state.glasses.all.isEmpty }
        }
    }

    @Test func oneProgressRunsAcrossTheFirmwareAndTheFPGA() {
        func state(_ phase: GlassesPhase) -> GlassesState { GlassesState(kind: .monocle, phase: phase) }
        func running(firmware: String, fpga: String) -> GlassesState {
            state(.running(GlassesDeviceInfo(firmware: firmware, fpga: fpga, app: "sibyl", uploaded: false, maximumWriteLength: 253)))
        }
        var both = GlassesHub.UpdateProgress(firmware: "v23.300.1200", fpga: "v23.300.0001")
        both.observe(state(.updatingFirmware(progress: 0.5)))
        #expect(both.progress == 0.25 && both.step == "firmware")
        both.observe(state(.disconnected(reason: "restarting")))
        both.observe(state(.updatingFPGA(progress: 0.5)))
        #expect(both.progress == 0.75 && both.step == "fpga")
        both.observe(running(firmware: "v23.300.1200", fpga: "v23.300.0001"))
        #expect(both.outcome == .done && both.progress == 1 && both.step == nil)

        var fpgaOnly = GlassesHub.UpdateProgress(firmware: nil, fpga: "v23.300.0001")
        fpgaOnly.observe(state(.updatingFPGA(progress: 0.5)))
        #expect(fpgaOnly.progress == 0.5, "one step fills the whole bar")

        var current = GlassesHub.UpdateProgress(firmware: "v23.300.1200", fpga: nil)
        current.observe(running(firmware: "v23.300.1200", fpga: "v23.230.0808"))
        #expect(current.outcome == .upToDate, "nothing written: the glasses already had it")

        var failing = GlassesHub.UpdateProgress(firmware: "v23.300.1200", fpga: nil)
        failing.observe(state(.updatingFirmware(progress: 0.3)))
        failing.failed("the bootloader refused the signature")
        #expect(failing.outcome == .failed && failing.error == "the bootloader refused the signature")
        // Tried again, and this time it took.
        failing.observe(state(.updatingFirmware(progress: 0.1)))
        #expect(failing.outcome == .running && failing.error == nil)
        failing.observe(running(firmware: "v23.300.1200", fpga: "v23.230.0808"))
        #expect(failing.outcome == .done)

        var behind = GlassesHub.UpdateProgress(firmware: "v23.300.1200", fpga: nil)
        behind.observe(state(.updatingFirmware(progress: 1)))
        behind.observe(running(firmware: "v23.248.0754", fpga: "v23.230.0808"))
        #expect(behind.outcome == .failed)
        #expect(behind.error == "The glasses report firmware v23.248.0754 instead of v23.300.1200.")
    }
}
