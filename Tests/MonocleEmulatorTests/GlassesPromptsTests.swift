import Foundation
import FrameGlasses
import Glasses
import Monocle
import MonocleEmulator
import Testing

/// The apps' own words on the glasses in the wearer's language: Sibyl sends them when its app
/// starts, and the glasses show them instead of their English ones.
@Suite(.timeLimit(.minutes(10))) struct GlassesPromptsTests {
    @Test func aLanguageTheGlassesCanWriteGetsItsWordsOthersEnglish() {
        #expect(GlassesPrompts.forLanguage("id") == .indonesian)
        #expect(GlassesPrompts.forLanguage("id-ID") == .indonesian)
        #expect(GlassesPrompts.forLanguage("ko") == .english, "the glasses' fonts hold Latin letters only")
        #expect(GlassesPrompts.forLanguage(nil) == .english)
        // Every word is one the glasses' fonts can draw.
        for prompts in [GlassesPrompts.english, .indonesian] {
            for text in Mirror(reflecting: prompts).children.compactMap({ $0.value as? String }) {
                #expect(text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "\(text)")
            }
        }
    }

    @Test func monoclesWordsGoInWholeLinesThatFitEachWrite() {
        for length in [253, 64, 23] {
            let messages = AppMessage.prompts(.indonesian, maximumLength: length)
            #expect(messages.allSatisfy { $0.command == .prompts && $0.payload.count + 4 <= length })
            let lines = messages.flatMap { String(decoding: $0.payload, as: UTF8.self).split(separator: "\n").map(String.init) }
            #expect(lines.allSatisfy { $0.contains("=") })
            if length == 253 {
                #expect(lines.count == 11)
                #expect(lines.contains("tap=Ketuk untuk bicara"))
            }
        }
    }

    @Test(.enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
    func monocleShowsTheWearersPrompt() async throws {
        try await TestGlasses.with { glasses in
            var options = MonocleDriver.Options.fast
            options.prompts = .indonesian
            try await MonocleConnectionTests.connection(EmulatorTransport(emulator: glasses), driver: options).serve { observer in
                _ = try await observer.running()
                _ = try await glasses.waitForScreen(timeout: .seconds(120)) { $0.lines.contains("Ketuk untuk bicara") }
            }
        }
    }

    @Test func frameShowsTheWearersStatusWords() async throws {
        var options = FrameDriver.Options.fast
        options.prompts = .indonesian
        try await FrameConnectionTests.withFrame(options: options) { emulator, _, driver, observer in
            _ = try await observer.running()
            _ = try await observer.until("the idle prompt") { FrameConnectionTests.shownText(emulator).contains("Ketuk untuk bertanya") ? true : nil }
            try await driver.send(SibylFrameApp.status(.thinking))
            _ = try await observer.until("the thinking status") { FrameConnectionTests.shownText(emulator).contains("Berpikir...") ? true : nil }
        }
    }
}
