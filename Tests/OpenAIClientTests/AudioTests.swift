import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import OpenAIClient

@Suite("Audio: transcription, translation, speech", .timeLimit(.minutes(10)))
struct AudioTests {
    let wav = WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(repeating: 1, count: 3200)).encoded()

    @Test func transcriptionUploadsAMultipartForm() async throws {
        try await withServer { server in
            server.enqueue(.json(#"{"text":"  hello world \n"}"#), for: "/v1/audio/transcriptions")
            let client = makeClient(server)
            let result = try await client.transcribe(
                AudioFile(data: wav, format: .wav),
                options: TranscriptionOptions(language: "en", prompt: "Sibyl, Monocle", model: "whisper-x")
            )
            #expect(result.text == "hello world")
            #expect(result.language == "en")
            let sent = try #require(server.requests(to: "/v1/audio/transcriptions").first)
            let form = try #require(MultipartParts(body: sent.body, contentType: sent.header("Content-Type") ?? ""))
            #expect(form["file"]?.data == wav)
            #expect(form["file"]?.filename == "audio.wav")
            #expect(form["file"]?.contentType == "audio/wav")
            #expect(form["model"]?.text == "whisper-x")
            #expect(form["language"]?.text == "en")
            #expect(form["prompt"]?.text == "Sibyl, Monocle")
            #expect(form["response_format"]?.text == "json")
        }
    }

    @Test func translationUsesItsEndpointAndNoLanguage() async throws {
        try await withServer { server in
            server.enqueue(.json(#"{"text":"Good morning"}"#), for: "/v1/audio/translations")
            let result = try await makeClient(server).transcribe(
                AudioFile(data: Data([1, 2, 3]), format: .mp3),
                options: TranscriptionOptions(translate: true, language: "fr")
            )
            #expect(result.text == "Good morning")
            #expect(result.language == nil)
            let sent = try #require(server.requests(to: "/v1/audio/translations").first)
            let form = try #require(MultipartParts(body: sent.body, contentType: sent.header("Content-Type") ?? ""))
            #expect(form["language"] == nil)
            #expect(form["model"]?.text == "whisper-1")
            #expect(form["file"]?.contentType == "audio/mpeg")
        }
    }

    @Test func subtitlesArriveAsTheDocument() async throws {
        try await withServer { server in
            let srt = "1\n00:00:00,000 --> 00:00:01,500\nHello world\n"
            server.enqueue(.bytes(Data(srt.utf8), contentType: "text/plain"), for: "/v1/audio/transcriptions")
            let result = try await makeClient(server).transcribe(AudioFile(data: wav, format: .wav), options: TranscriptionOptions(format: .srt))
            #expect(result.text == srt)
            let sent = try #require(server.requests(to: "/v1/audio/transcriptions").first)
            #expect(MultipartParts(body: sent.body, contentType: sent.header("Content-Type") ?? "")?["response_format"]?.text == "srt")
        }
    }

    @Test func speechSendsModelVoiceFormatSpeed() async throws {
        try await withServer { server in
            server.enqueue(.bytes(wav, contentType: "audio/wav"), for: "/v1/audio/speech")
            let audio = try await makeClient(server).synthesize("Hello.", options: SpeechOptions(model: "tts-1-hd", voice: "nova", format: .wav, speed: 1.25))
            #expect(audio.data == wav)
            let json = try #require(server.requests(to: "/v1/audio/speech").first?.json)
            #expect(json["model"] as? String == "tts-1-hd")
            #expect(json["voice"] as? String == "nova")
            #expect(json["response_format"] as? String == "wav")
            #expect(json["speed"] as? Double == 1.25)
            #expect(json["input"] as? String == "Hello.")
        }
    }

    @Test func longSpeechIsSplitAtSentencesAndJoined() async throws {
        try await withServer { server in
            // Each piece comes back as WAV whose length is the piece's character count in samples.
            server.handle("/v1/audio/speech") { request in
                let input = request.json?["input"] as? String ?? ""
                let piece = WAVAudio(sampleRate: 24_000, channels: 1, bitsPerSample: 16, samples: Data(repeating: 7, count: input.count * 2))
                return .bytes(piece.encoded(), contentType: "audio/wav")
            }
            let sentence = "This is a sentence that will be spoken aloud by the voice. "
            let text = String(repeating: sentence, count: 150)  // about 8,900 characters
            let audio = try await makeClient(server).synthesize(text, options: SpeechOptions(format: .wav))
            let requests = server.requests(to: "/v1/audio/speech")
            #expect(requests.count == 3)
            let inputs = requests.compactMap { $0.json?["input"] as? String }
            #expect(inputs.allSatisfy { $0.count <= 4096 && $0.hasSuffix(".") })
            let joined = try WAVAudio(parsing: audio.data)
            #expect(joined.sampleRate == 24_000)
            #expect(joined.samples.count == inputs.reduce(0) { $0 + $1.count * 2 })
        }
    }

    @Test func longSpeechInAFormatThatCannotBeJoinedIsRefusedUpFront() async throws {
        try await withServer { server in
            let text = String(repeating: "Words and more words. ", count: 300)
            await #expect(throws: OpenAIError.self) {
                try await makeClient(server).synthesize(text, options: SpeechOptions(format: .opus))
            }
            #expect(server.requests.isEmpty)
        }
    }
}
