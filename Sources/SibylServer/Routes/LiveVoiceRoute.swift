import Assistant
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Knowledge
import NIOCore
import SibylApp
import SibylCore

/// A spoken question streamed as it is spoken: `GET /api/v1/conversations/{id}/voice/live`,
/// upgraded to a WebSocket.
///
/// The page sends the microphone's sound as it records it, in binary messages of 16 kHz mono 16-bit
/// little-endian samples (up to 16 kB each: the WebSocket's frame limit), and may send `{"type":"stop"}` (the person pressed Stop:
/// what was said is the question). The server hears the end of the question as the terminal does
/// (Silero VAD, a 500 ms hang-over, a longer wait for words that stop mid-sentence), shows the
/// words as they form, and answers. Each server message is JSON, `{"event": NAME, "data": …}`:
/// `listening`, `partial` ({text}) while the person speaks, then the voice route's events
/// (`transcript`, the answer's events, `spoken`, `speech`, `timings`), or `noSpeech`, or `error`
/// ({code, message}). Stage times count from the end of speech. Query: `languageHint`, `language`,
/// `speak=sentences` (with `voice`, `speechFormat`, `speed`), `documents=true` or `collection`,
/// `searchMode`, `model`, `answerLanguage`.
struct LiveVoiceRoute: Sendable {
    let state: ServerState

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.ws("conversations/:conversationId/voice/live", shouldUpgrade: { request, context in
            try GlassesRoutes.checkOrigin(request)
            let runtime = try await state.runtime(for: context)
            _ = try await runtime.conversations.conversation(id: try context.uuid("conversationId"))
            // Refused before the upgrade, with a status the page can read.
            _ = try Self.options(request)
            return .upgrade([:])
        }) { inbound, outbound, context in
            let (lines, continuation) = AsyncStream<String>.makeStream()
            // One writer: events come from the answer and from its speech at once.
            let writing = Task {
                for await line in lines {
                    do { try await outbound.write(.text(line)) } catch { return }
                }
            }
            let send: @Sendable (String, any Encodable & Sendable) -> Bool = { name, value in
                if case .terminated = continuation.yield("{\"event\":\(WireCoding.jsonText(name)),\"data\":\(WireCoding.jsonText(value))}") { return false }
                return true
            }
            await serve(inbound: inbound, context: context, send: send)
            continuation.finish()
            await writing.value
        }
    }

    struct Options {
        var request: AskRequest
        var transcription: TranscriptionOptions
        var languageHint: String?
        var speaking: SpeechOptions?
    }

    static func options(_ request: Request) throws -> Options {
        func field(_ name: String) -> String? { request.uri.queryParameters.get(name) }
        var documents: DocumentScope?
        if field("documents") == "true" || field("collection") != nil {
            documents = DocumentScope(collection: field("collection"), mode: field("searchMode").flatMap(SearchMode.init(rawValue:)) ?? .hybrid)
        }
        let speaking = field("speak") == "sentences"
            ? try AudioRoutes.speechOptions(voice: field("voice"), format: field("speechFormat"), speed: field("speed").flatMap(Double.init))
            : nil
        return Options(
            request: AskRequest("", conversation: .id(UUID()), documents: documents, options: try TurnOptions(model: field("model"), answerLanguage: field("answerLanguage"))),
            transcription: TranscriptionOptions(language: field("language")), languageHint: field("languageHint"), speaking: speaking
        )
    }

    private func serve(inbound: WebSocketInboundStream, context: WebSocketRouterContext<SibylRequestContext>, send: @escaping @Sendable (String, any Encodable & Sendable) -> Bool) async {
        let requestContext = context.requestContext
        do {
            let runtime = try await state.runtime(for: requestContext)
            let id = try requestContext.uuid("conversationId")
            var options = try Self.options(context.request)
            options.request.conversation = ConversationChoice.id(id)
            let listener = try runtime.voice.listener(transcription: options.transcription, languageHint: options.languageHint)
            _ = send("listening", ["sampleRate": AudioResampling.speechSampleRate])
            let hearing = Task { await Self.hear(inbound, into: listener) }
            let showing = Task { await Self.showPartials(of: listener, send: send) }
            // A page that sends nothing must not hold the question open.
            let watchdog = listener.watchdog(runtime.voice.detection())
            defer {
                watchdog.cancel()
                hearing.cancel()
                showing.cancel()
            }
            guard case .heard(let heard, _) = try await listener.result() else {
                _ = send("noSpeech", ["message": AssistantError.noSpeech.localizedDescription])
                return
            }
            showing.cancel()
            let lag = await listener.transcriptLag ?? .zero
            let stages = VoiceStageClock(start: .now - lag)
            let (turn, slot) = try await state.withTurnSlot(for: requestContext.ownerKey) { try await runtime.voice.ask(heard: heard, request: options.request) }
            slot.free(whenEnded: turn.ask)
            let events = SpokenAnswerEvents(runtime: runtime, conversationID: id, speaking: options.speaking, stages: stages, before: (.zero, .zero, lag))
            await events.run(turn, send: send)
        } catch {
            let problem = APIError.from(error)
            _ = send("error", ["code": problem.code, "message": problem.message])
        }
    }

    /// Feeds the page's samples to the listener until the question is over; a `stop` message or
    /// the page going away ends it with what was said.
    private static func hear(_ inbound: WebSocketInboundStream, into listener: SpokenQuestionListener) async {
        do {
            for try await message in inbound.messages(maxSize: 1 << 20) {
                switch message {
                case .binary(var buffer):
                    var samples: [Int16] = []
                    samples.reserveCapacity(buffer.readableBytes / 2)
                    while let sample = buffer.readInteger(endianness: .little, as: Int16.self) { samples.append(sample) }
                    await listener.add(samples)
                case .text(let text):
                    if text.contains("\"stop\"") { await listener.stop() }
                }
                if await listener.isDone { return }
            }
        } catch {}
        await listener.stop()
    }

    /// Sends the words heard so far whenever they change, until the question is over.
    private static func showPartials(of listener: SpokenQuestionListener, send: @Sendable (String, any Encodable & Sendable) -> Bool) async {
        for await text in await listener.partials() {
            guard send("partial", ["text": text]) else { return }
        }
    }
}
