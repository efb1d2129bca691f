import AsyncHTTPClient
public import Foundation
public import Logging
import MultipartKit
import NIOCore
import NIOFoundationCompat
public import SibylCore

/// Offline speech-to-text with the model kept loaded: whisper.cpp's `whisper-server`, started on
/// the first question (or by `start()`), warmed up, and asked over loopback HTTP for every question
/// after. Compared with a `whisper-cli` process per question, no question pays for a process start
/// and a model load, and the encoder reads a window half as long as Whisper's 30 s.
public struct WhisperServerTranscriber: Transcriber {
    public struct Configuration: Sendable, Hashable {
        public var executable: URL
        public var model: URL
        public var threads: Int
        /// Where the server's output goes.
        public var logFile: URL
        /// The encoder's window in 20 ms frames (`--audio-ctx`); 1,500 is Whisper's whole 30 s window.
        /// Set once for the server's life: whisper.cpp gave different words for the same recording
        /// when the window changed between requests.
        public var windowFrames: Int

        public init(executable: URL, model: URL, threads: Int = WhisperTranscriber.defaultThreads, logFile: URL, windowFrames: Int = WhisperServerTranscriber.defaultWindowFrames) {
            self.executable = executable
            self.model = model
            self.threads = max(1, threads)
            self.logFile = logFile
            self.windowFrames = min(WhisperServerTranscriber.wholeWindow, max(100, windowFrames))
        }

        /// The engines directory's server and model.
        public init(layout: EngineLayout, logFile: URL, threads: Int = WhisperTranscriber.defaultThreads) {
            self.init(executable: layout.whisperServer, model: layout.whisperModel, threads: threads, logFile: logFile)
        }

        func arguments(port: Int) -> [String] {
            ["--model", model.path, "--host", "127.0.0.1", "--port", String(port), "--threads", String(threads), "--audio-ctx", String(windowFrames)]
        }
    }

    public let configuration: Configuration
    private let server: ResidentServer

    /// Longest answer body read (subtitles of a long recording).
    static let maximumResponse = 16 << 20
    /// Seconds per frame of Whisper's encoder window, and the frames of a whole window (30 s).
    static let frameSeconds = 0.02
    public static let wholeWindow = 1500
    /// 15.36 s: as many words right as the whole window on the project's recordings, in half the time.
    public static let defaultWindowFrames = 768

    public init(configuration: Configuration, logger: Logger = Logger(label: "sibyl.whisper-server")) {
        self.configuration = configuration
        server = ResidentServer(
            configuration: .init(
                name: "whisper-server",
                component: "stt",
                executable: configuration.executable,
                requiredFiles: [configuration.model],
                arguments: { configuration.arguments(port: $0) },
                logFile: configuration.logFile,
                startupTimeout: .seconds(60),
                warmUp: { root in
                    // The first inference allocates whisper.cpp's buffers; pay for it before any question.
                    let second = [Int16](repeating: 0, count: AudioResampling.speechSampleRate)
                    _ = try await Self.post(root: root, samples: second, fields: [("language", "en"), ("no_timestamps", "true"), ("response_format", "json")])
                }
            ),
            logger: logger
        )
    }

    /// Starts the server and loads the model now, so the first question does not wait for it.
    public func start() async throws {
        _ = try await server.root()
    }

    /// Stops the server.
    public func stop() async {
        await server.stop()
    }

    /// The server's process id, while it runs.
    public var processID: Int32? { get async { await server.processID } }

    /// How many times the server was started.
    public var launches: Int { get async { await server.launches } }

    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        let recording = try WhisperTranscriber.decode(audio)
        let samples = AudioResampling.pcm16(AudioResampling.speechSamples(from: recording))
        guard !samples.isEmpty else { return Transcription(text: "", language: options.language, duration: 0) }
        let language = try Self.language(options.language)
        let seconds = Double(samples.count) / Double(AudioResampling.speechSampleRate)
        var fields: [(String, String)] = [("language", language ?? "auto")]
        if options.translate { fields.append(("translate", "true")) }
        if let prompt = options.prompt, !prompt.isEmpty { fields.append(("prompt", prompt)) }
        if let temperature = options.temperature { fields.append(("temperature", String(temperature))) }
        switch options.format {
        case .text:
            // verbose_json names the language spoken, but costs whisper.cpp about 0.35 s more (it
            // times every word): it is asked for only when the language is to be detected.
            fields.append(("response_format", language == nil ? "verbose_json" : "json"))
            // A recording that fits one window is decoded as one segment; timestamps would let
            // whisper.cpp go on decoding the quiet after the speech into made-up words. A longer
            // one needs them: they are how whisper.cpp moves on to the next window.
            if fitsOneWindow(seconds: seconds) { fields.append(("no_timestamps", "true")) }
        case .srt: fields.append(("response_format", "srt"))
        case .vtt: fields.append(("response_format", "vtt"))
        }
        let body = try await Self.post(root: try await server.root(), samples: samples, fields: fields)
        guard options.format == .text else {
            return Transcription(text: String(decoding: body, as: UTF8.self), language: language, duration: recording.duration)
        }
        let result: VerboseResult
        do {
            result = try JSONDecoder().decode(VerboseResult.self, from: body)
        } catch {
            throw WhisperError.unreadableOutput("\(error)")
        }
        let detected = result.language.flatMap { WhisperLanguages.codes[$0.lowercased()] }
        let text = result.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return Transcription(text: text, language: language ?? detected, duration: recording.duration)
    }

    /// Whether a recording fits the encoder's window with a second to spare.
    func fitsOneWindow(seconds: Double) -> Bool {
        seconds + 1 <= Double(configuration.windowFrames) * Self.frameSeconds
    }

    /// A language code Whisper knows, lowercased; nil to detect it. whisper-server fails with a
    /// bare 500 on a code it does not know, so codes are checked here.
    static func language(_ requested: String?) throws -> String? {
        guard let code = requested?.trimmingCharacters(in: .whitespaces).lowercased(), !code.isEmpty, code != "auto" else { return nil }
        guard WhisperLanguages.names[code] != nil else { throw WhisperError.unknownLanguage(code) }
        return code
    }

    /// The part of whisper-server's `json` and `verbose_json` answers read here.
    struct VerboseResult: Decodable {
        var text: String
        /// The language's English name ("english"), in `verbose_json` only.
        var language: String?
    }

    /// The client requests go through. AsyncHTTPClient holds a request to its client's read timeout
    /// whatever the request's deadline, and `HTTPClient.shared`'s is 90 s: a long recording on a
    /// busy machine, decoded for longer before the first byte of the answer, failed there.
    /// whisper-server closes a kept-alive connection after 5 s idle, and a request sent just as it
    /// does fails unseen: connections idle for 3 s are closed here first.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(600))
        configuration.connectionPool.idleTimeout = .seconds(3)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Posts one recording (16 kHz mono) with its fields to `/inference`; the answer's body.
    static func post(root: String, samples: [Int16], fields: [(String, String)]) async throws -> Data {
        let boundary = "sibyl-\(UUID().uuidString)"
        var parts = fields.map { name, value in
            MultipartPart(headers: ["Content-Disposition": "form-data; name=\"\(name)\""], body: value)
        }
        let wav = AudioResampling.wav(pcm16: samples, sampleRate: AudioResampling.speechSampleRate).encoded()
        parts.append(MultipartPart(
            headers: ["Content-Disposition": "form-data; name=\"file\"; filename=\"speech.wav\"", "Content-Type": "audio/wav"],
            body: ByteBuffer(data: wav)
        ))
        var buffer = ByteBuffer()
        try MultipartSerializer().serialize(parts: parts, boundary: boundary, into: &buffer)
        var request = HTTPClientRequest(url: root + "/inference")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .bytes(buffer)
        // Cancelling the question closes the connection, which whisper-server takes as "stop".
        let response = try await Self.client.execute(request, timeout: .seconds(600))
        let body = Data(buffer: try await response.body.collect(upTo: maximumResponse))
        guard response.status.code == 200 else {
            let message = (try? JSONDecoder().decode([String: String].self, from: body))?["error"] ?? String(decoding: body.prefix(500), as: UTF8.self)
            throw WhisperError.serverFailed(status: Int(response.status.code), message: message)
        }
        return body
    }
}
