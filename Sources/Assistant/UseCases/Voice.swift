import Foundation
import SibylConfig
public import SibylCore

/// A spoken question: what was heard, and the answer under way (or the plain reply).
public struct VoiceTurn: Sendable {
    public var transcript: Transcription
    public var ask: AskResult
    /// Decoding the recording and finding the speech in it (ffmpeg and the voice detector).
    public var decoding: Duration = .zero
    /// Speech to text.
    public var transcribing: Duration = .zero

    package init(transcript: Transcription, ask: AskResult, decoding: Duration = .zero, transcribing: Duration = .zero) {
        self.transcript = transcript
        self.ask = ask
        self.decoding = decoding
        self.transcribing = transcribing
    }
}
