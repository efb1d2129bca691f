import Assistant
import Foundation
import SibylApp
import SibylCore

/// A spoken question's answer as named events, the same over server-sent events (the voice
/// route) and the live voice WebSocket: the transcript, the answer's events as it is written, each
/// sentence spoken as soon as it is written (when asked for), where the whole answer is spoken,
/// and the stage times at the end, which are also written to the operations log.
struct SpokenAnswerEvents: Sendable {
    let runtime: SibylRuntime
    let conversationID: UUID
    /// Speak each sentence as it is written, with these options; nil: no `spoken` events.
    let speaking: SpeechOptions?
    /// Where the stage times count from (the recording's arrival, or the end of speech).
    let stages: VoiceStageClock
    /// The stages before the answer (receive, decode, transcribe).
    let before: (receive: Duration, decode: Duration, transcribe: Duration)

    /// Sends everything; `send` returns false once the client has gone (nothing more is sent then).
    func run(_ turn: VoiceTurn, send: @escaping @Sendable (String, any Encodable & Sendable) -> Bool) async {
        let id = conversationID
        guard send("transcript", Wire.Transcription(turn.transcript, timings: timings())) else { return }
        guard case .answering(let live) = turn.ask.outcome else {
            if case .declined(let declined) = turn.ask.outcome {
                _ = send("declined", Wire.Answer(declined: declined, conversationID: id))
            }
            return
        }
        let stages = self.stages
        let speech = speaking.map { options in
            Task { [runtime] in
                var index = 0
                do {
                    for try await sentence in runtime.voice.speakAsWritten(live, options: options) {
                        stages.audio()
                        guard send("spoken", Wire.SpokenSentence(index: index, text: sentence.text, audio: sentence.audio)) else { return }
                        index += 1
                    }
                } catch {
                    _ = send("speechFailed", ["error": Redaction.redact(error.localizedDescription)])
                }
            }
        }
        for await event in live.events() {
            if case .delta = event { stages.token() }
            let wire = Wire.TurnEvent(event, conversationID: id, attachmentURL: ConversationRoutes.url)
            guard send(wire.type, wire) else {
                speech?.cancel()
                return
            }
            if case .finished(let message) = event {
                _ = send("speech", ["url": "/api/v1/conversations/\(id.wireString)/messages/\(message.id.wireString)/speech"])
            }
        }
        await speech?.value
        let timings = timings()
        _ = send("timings", timings)
        await runtime.voice.record(timings)
    }

    /// The stage times so far.
    func timings() -> Wire.VoiceTimings {
        Wire.VoiceTimings(receive: before.receive, decode: before.decode, transcribe: before.transcribe, firstToken: stages.firstToken, firstAudio: stages.firstAudio)
    }
}
