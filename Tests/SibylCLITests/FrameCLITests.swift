import Foundation
import LocalEngines
import Testing

/// `sibyl glasses connect --kind frame`, as a user runs it, on the virtual Frame: part of the
/// serialized Monocle CLI suite, so its local engines never load beside Monocle's.
extension MonocleCLITests {
    @Test func aQuestionSpokenIntoTheVirtualFrameIsAnsweredAndSaved() async throws {
        let cli = try runner()
        let wav = try await speech("What is the capital of France?", in: cli.home)
        #expect(try await cli.run(["config", "set", "chat.temperature", "0"]).status == 0)
        // Tap to listen, the question plays into the microphone, tap to stop.
        let result = try await cli.run(
            ["glasses", "connect", "--emulator", "--kind", "frame"],
            input: "say \(wav.path)\ntap\npause 4\ntap\nwait 900\nscreen\nquit\n"
        )
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("[frame: running"), "\(result.stdout)")
        #expect(result.stdout.contains("uploading sibyl_frame.lua"), "\(result.stdout)")
        #expect(result.stdout.contains("heard: "), "\(result.stdout)")
        #expect(result.stdout.contains("Paris"), "\(result.stdout)")
        #expect(result.stdout.contains("Listening..."), "the glasses' display is drawn: \(result.stdout)")
        let list = try #require(try await cli.run(["conversations", "list", "--source", "glasses", "--json"]).conversations)
        #expect(list.count == 1)

        // The virtual Frame keeps its flash: a second session finds the app in place.
        let again = try await cli.run(["glasses", "connect", "--emulator", "--kind", "frame"], input: "quit\n")
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.contains("[frame: running"), "\(again.stdout)")
        #expect(!again.stdout.contains("uploading sibyl_frame.lua"))
    }

    @Test func withoutPairedGlassesConnectSaysWhatToDo() async throws {
        let cli = try CLIRunner(server: nil)
        let result = try await cli.run(["glasses", "connect"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("No glasses are paired yet"), "\(result.stderr)")
        #expect(result.stderr.contains("sibyl glasses pair"), "\(result.stderr)")
    }
}
