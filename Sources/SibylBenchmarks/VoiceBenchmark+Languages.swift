import Foundation
import LocalEngines
import SibylCore

extension VoiceBenchmark {
    /// Questions in the languages Moonshine does not hear, through the same listener with the
    /// resident Whisper (whisper-server, the language given, the window sized to the question).
    /// There are no real Korean or Indonesian recordings with a clear licence in Debian or PyPI
    /// yet, so these are spoken by espeak-ng: the latency is what it is for real speech of the
    /// same length; the words heard are not a fair WER.
    static let otherLanguageQuestions: [(language: String, questions: [String])] = [
        ("ko", ["한국의 수도는 어디입니까?", "오늘 날씨는 어때요?", "가장 가까운 병원은 어디에 있나요?", "이 책은 누가 썼나요?", "내일 아침 일곱 시에 알람을 맞춰 주세요."]),
        ("id", ["Apa ibu kota Indonesia?", "Bagaimana cuaca hari ini?", "Di mana rumah sakit terdekat?", "Siapa yang menulis buku ini?", "Tolong pasang alarm jam tujuh pagi besok."]),
    ]

    func otherLanguages(layout: EngineLayout, whisper: WhisperServerTranscriber, firstToken: Double?) async throws {
        let silero = { try SileroVoiceDetector(layout: layout).stream() as any SpeechClassifier }
        let espeak = EspeakSynthesizer()
        for (language, questions) in Self.otherLanguageQuestions {
            var recordings: [VoiceRecordings.Recording] = []
            for (index, question) in questions.enumerated() {
                let wav = try await espeak.synthesize(question, options: SpeechOptions(voice: language, format: .wav)).data
                let samples = try AudioResampling.speechSamples(fromWAV: wav)
                let end = VoiceActivityDetector.speechRange(in: AudioResampling.pcm16(samples))?.upperBound ?? samples.count
                recordings.append(VoiceRecordings.Recording(id: "\(language)-\(index + 1)", transcript: question, samples: samples, set: "espeak-ng \(language)", speechEnd: end))
            }
            say("\(language): \(recordings.count) questions spoken by espeak-ng (\(language) voice), heard by whisper-server with the language given:")
            let ready = try await liveQuestions(recordings, transcriber: whisper, classifier: silero, partials: SpokenQuestionListener.defaultPartialInterval, language: language, engine: "whisper-server")
            if let firstToken {
                say(String(format: "  %@: end of speech → transcript %.0f ms, → first answer token about %.0f ms (with the English first token, %.0f ms)", language as NSString, ready, ready + firstToken, firstToken))
            }
        }
    }
}
