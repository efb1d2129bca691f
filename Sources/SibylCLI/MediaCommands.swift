public import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl transcribe`: speech to text.
struct Transcribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Transcribe a recording (WAV, MP3, M4A, FLAC, Ogg, WebM …), or translate it into English.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The audio file.") var file: String
    @Flag(help: "Translate the speech into English instead of transcribing it.") var translate = false
    @Option(help: "The spoken language as an ISO-639-1 code (e.g. en, fr), if known.") var language: String?
    @Option(help: "Words that guide spelling, such as names.") var prompt: String?
    @Option(help: "Speech-to-text model instead of the configured one.") var model: String?
    @Flag(help: "Print JSON with text, language and duration.") var json = false
    @Option(help: "text (default), srt or vtt subtitles.") var format: TranscriptFormat = .text

    func run() async throws {
        try await global.withRuntime { runtime in
            let url = URL(fileURLWithPath: file)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CLIError("Cannot read \(file).", hint: "Check the path.")
            }
            guard let audioFormat = AudioFormat(sniffing: data) ?? AudioFormat(fileExtension: url.pathExtension) else {
                throw CLIError("\(file) does not look like audio (.wav, .mp3, .m4a, .flac, .ogg, .webm).")
            }
            let result = try await runtime.voice.transcribe(
                AudioFile(data: data, format: audioFormat),
                options: TranscriptionOptions(translate: translate, language: language, prompt: prompt, model: model, format: format)
            )
            Terminal.print(json ? Format.json(Wire.Transcription(result)) : result.text)
        }
    }
}

extension TranscriptFormat: ExpressibleByArgument {}

/// `sibyl speak`: text to speech.
struct Speak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Speak text into an audio file.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The text (or - for standard input).") var text: [String] = []
    @Option(name: [.short, .long], help: "The audio file to write; its extension picks the format (wav, mp3, flac, opus, aac, pcm).") var output: String
    @Option(help: "The voice: an espeak-ng voice such as en-us, fr, de locally (`espeak-ng --voices`), or alloy, nova, verse … for OpenAI.") var voice: String?
    @Option(help: "Speed, 0.25–4.0.") var speed: Double?
    @Option(help: "Text-to-speech model instead of the configured one.") var model: String?

    func validate() throws {
        if let speed, !(0.25...4).contains(speed) { throw ValidationError("--speed must be between 0.25 and 4.") }
    }

    func run() async throws {
        try await global.withRuntime { runtime in
            var input = text.joined(separator: " ")
            if input.isEmpty || input == "-" { input = Terminal.readAllInput() }
            guard !input.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("There is no text to speak.") }
            let ext = URL(fileURLWithPath: output).pathExtension
            guard let format = AudioFormat(fileExtension: ext.isEmpty ? "wav" : ext) else {
                throw CLIError("Cannot write .\(ext) audio.", hint: "Use a .wav, .mp3, .flac, .opus, .aac or .pcm file name.")
            }
            let audio = try await runtime.voice.speak(input, options: SpeechOptions(model: model, voice: voice, format: format, speed: speed))
            try audio.data.write(to: URL(fileURLWithPath: output), options: .atomic)
            Terminal.error("Wrote \(output) (\(audio.data.count) bytes).")
        }
    }
}

/// `sibyl imagine`: image generation.
struct Imagine: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw an image from a prompt and save it (images are downloaded at once: provider links expire).",
        discussion: "The images are also kept in a conversation (see `sibyl conversations list`)."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What to draw.") var prompt: [String]
    @Option(name: [.short, .long], help: "The image file to write (with several images: name-1.png, name-2.png …).") var output: String
    @Option(help: "Size, as the model draws it: dall-e-3 1024x1024, 1792x1024 or 1024x1792; dall-e-2 256x256, 512x512 or 1024x1024.") var size: String?
    @Option(help: "Quality, e.g. standard, hd, low, medium, high (depends on the model).") var quality: String?
    @Option(name: [.customShort("n"), .long], help: "How many images (dall-e-3 draws one at a time; others up to 10).") var count = 1
    @Option(help: "Image model instead of the configured one.") var model: String?

    func run() async throws {
        try await global.withRuntime { runtime in
            let text = prompt.joined(separator: " ")
            let result = try await runtime.conversations.imagine(
                text, options: ImageOptions(model: model, size: size, quality: quality, count: count),
                conversation: .new(NewConversation(source: .cli))
            )
            let base = URL(fileURLWithPath: output)
            for (index, image) in result.images.enumerated() {
                var url = base
                if result.images.count > 1 {
                    let stem = base.deletingPathExtension().lastPathComponent
                    let ext = base.pathExtension.isEmpty ? image.fileExtension : base.pathExtension
                    url = base.deletingLastPathComponent().appendingPathComponent("\(stem)-\(index + 1).\(ext)")
                }
                try image.data.write(to: url, options: .atomic)
                Terminal.error("Wrote \(url.path) (\(image.data.count) bytes).")
                if let revised = image.revisedPrompt { Terminal.error(Terminal.dim("prompt used: \(revised)", stderr: true)) }
            }
        }
    }
}
