public import Foundation
public import FrameProtocol
public import Glasses

/// The wearer's side of Sibyl's Frame app, on the host: Frame's app only reports taps and streams
/// what it is asked for, and this decides what a tap means (no I/O: it says what to do).
///
/// - Idle (or showing an answer): one tap starts listening; a double tap takes a photo, then listens.
/// - Listening: a tap stops the microphone; the recording becomes a request.
/// - Waiting for the answer: a tap cancels it; so does a tap while a photo that never comes is awaited.
/// - Live captions: the microphone streams until Sibyl ends them; a tap pauses and resumes.
public struct SibylFrameWearer: Sendable {
    /// What the wearer is doing.
    public enum Phase: Sendable, Equatable {
        case idle, listening, takingPhoto, listeningForPhoto, waiting, captioning, captionsPaused
    }

    /// A message to Sibyl's Frame app.
    public enum Command: Sendable, Equatable {
        case status(SibylFrameApp.Status)
        case listen(sampleRate: Int)
        case stop
        case photo

        /// The message that carries it.
        public func message() throws(FrameProtocolError) -> FrameMessage {
            switch self {
            case .status(let status): try SibylFrameApp.status(status)
            case .listen(let sampleRate): try SibylFrameApp.listen(sampleRate: sampleRate, bitDepth: 8)
            case .stop: try SibylFrameApp.stop()
            case .photo: try SibylFrameApp.photo()
            }
        }
    }

    /// What to do about what happened, in order.
    public enum Action: Sendable, Equatable {
        /// Send these to the app, in order, without holding up what comes next.
        case send([Command])
        /// The wearer asked for something.
        case request(GlassesRequest)
        /// A recording started to arrive.
        case transferStarted
        /// The microphone was started for a question (`forPhoto`: about the photo just taken).
        case recording(forPhoto: Bool)
        /// Samples of the recording under way (signed 8-bit), as they arrive.
        case audio(Data)
        /// Something worth a line in the log.
        case notice(String)
        /// Call ``gestureEnded(at:)`` at this moment (a later one replaces it).
        case endGesture(at: ContinuousClock.Instant)
        /// The wearer paused (true) or resumed (false) live captions.
        case captions(paused: Bool)
    }

    /// What the wearer is doing now.
    public private(set) var phase = Phase.idle
    private var taps: FrameTapCounter
    private var audio = FrameStreamAssembler.audio()
    private var photo = FrameStreamAssembler.photo()
    private var heldPhoto: Data?
    /// When Sibyl last ended a recording itself.
    private var stoppedBySibyl: ContinuousClock.Instant?
    /// The rate the microphone records at.
    public var sampleRate = 8000

    /// The wearer's logic; taps closer than `tapWindow` to each other make one gesture (Frame's
    /// own apps use about a third of a second).
    public init(tapWindow: Duration = .milliseconds(300)) {
        self.tapWindow = tapWindow
        taps = FrameTapCounter(window: tapWindow)
    }

    /// How close taps must be to make one gesture.
    public let tapWindow: Duration

    /// Back to idle, with nothing half received (a new link, or the app just started).
    public mutating func reset() {
        phase = .idle
        taps = FrameTapCounter(window: tapWindow)
        audio.reset()
        photo.reset()
        heldPhoto = nil
    }

    /// An answer (or an error) is shown: the wearer may ask again.
    public mutating func answerShown() {
        phase = .idle
    }

    /// Data the app sent (its flag byte first).
    public mutating func received(_ data: Data, at now: ContinuousClock.Instant) -> [Action] {
        guard let flag = data.first else { return [] }
        switch flag {
        case SibylFrameApp.Flag.tap:
            // Frame's moment of the tap follows the flag (older apps send the flag alone).
            let onDevice = data.count >= 5 ? data.dropFirst().prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
            return tapped(at: now, onDevice: onDevice)
        case SibylFrameApp.Flag.audio, SibylFrameApp.Flag.audioEnd:
            // Live captions: a stream that is never a question (a pause's stop ends it for a while).
            if phase == .captioning || phase == .captionsPaused {
                return phase == .captioning && data.count > 1 && flag == SibylFrameApp.Flag.audio ? [.audio(Data(data.dropFirst()))] : []
            }
            var actions: [Action] = []
            if audio.receivedCount == 0 && flag == SibylFrameApp.Flag.audio { actions.append(.transferStarted) }
            if data.count > 1, phase == .listening || phase == .listeningForPhoto { actions.append(.audio(Data(data.dropFirst()))) }
            if let recording = audio.add(data) { actions += recorded(recording) }
            return actions
        case SibylFrameApp.Flag.jpeg, SibylFrameApp.Flag.jpegEnd:
            guard let jpeg = photo.add(data) else { return [] }
            return photographed(jpeg)
        default:
            return [.notice("ignored data 0x\(String(flag, radix: 16)) from the glasses")]
        }
    }

    /// The moment a tap gesture may have ended: one tap listens, two take a photo.
    public mutating func gestureEnded(at now: ContinuousClock.Instant) -> [Action] {
        guard phase == .idle, let count = taps.gesture(at: now) else { return [] }
        return perform(gesture: count)
    }

    /// Sibyl heard the end of the question: the microphone stops as on the wearer's tap.
    public mutating func stopListening(at now: ContinuousClock.Instant) -> [Action] {
        guard phase == .listening || phase == .listeningForPhoto else { return [] }
        stoppedBySibyl = now
        return [.send([.stop])]
    }

    /// Live captions: the microphone streams until ``stopCaptions()``.
    public mutating func startCaptions() -> [Action] {
        phase = .captioning
        audio.reset()
        photo.reset()
        return [.send([.listen(sampleRate: sampleRate)])]
    }

    /// Ends live captions: the microphone stops, and the wearer may ask again.
    public mutating func stopCaptions() -> [Action] {
        guard phase == .captioning || phase == .captionsPaused else { return [] }
        phase = .idle
        taps = FrameTapCounter(window: tapWindow)
        return [.send([.stop, .status(.idle)])]
    }

    /// A tap this soon after Sibyl ended the question meant to end it too, not to cancel the answer.
    public static let stopGrace = Duration.milliseconds(1500)

    /// One tap listens; two take a photo, then listen.
    private mutating func perform(gesture count: Int) -> [Action] {
        guard count >= 2 else { return startListening(status: .listening) }
        phase = .takingPhoto
        heldPhoto = nil
        return [.send([.status(.takingPhoto), .photo])]
    }

    private mutating func tapped(at now: ContinuousClock.Instant, onDevice: UInt32?) -> [Action] {
        switch phase {
        case .captioning:
            phase = .captionsPaused
            return [.send([.stop]), .captions(paused: true)]
        case .captionsPaused:
            phase = .captioning
            return [.send([.listen(sampleRate: sampleRate)]), .captions(paused: false)]
        case .listening, .listeningForPhoto:
            // Stop at once: the wearer is waiting for the answer.
            return [.send([.stop])]
        case .waiting:
            if let stopped = stoppedBySibyl, now - stopped < Self.stopGrace { return [] }
            phase = .idle
            return [.request(.cancel), .send([.status(.idle)])]
        case .takingPhoto:
            // The photo never came (the camera failed on the glasses): a tap gives up on it.
            phase = .idle
            photo.reset()
            return [.send([.status(.idle)])]
        case .idle:
            // One tap or two: wait for the gesture to end.
            if let ended = taps.tap(at: now, onDevice: onDevice) {
                // The gesture before was over when this tap came (both arrived late): it counts
                // first, then this tap as the wearer meant it, in what that gesture began.
                taps = FrameTapCounter(window: tapWindow)
                return perform(gesture: ended) + tapped(at: now, onDevice: onDevice)
            }
            return taps.deadline.map { [.endGesture(at: $0)] } ?? []
        }
    }

    private mutating func startListening(status: SibylFrameApp.Status) -> [Action] {
        phase = status == .listening ? .listening : .listeningForPhoto
        stoppedBySibyl = nil
        audio.reset()
        return [.send([.status(status), .listen(sampleRate: sampleRate)]), .recording(forPhoto: status != .listening)]
    }

    private mutating func photographed(_ jpeg: Data) -> [Action] {
        guard phase == .takingPhoto else { return [] }
        heldPhoto = jpeg
        return startListening(status: .listeningForPhoto)
    }

    private mutating func recorded(_ recording: Data) -> [Action] {
        switch phase {
        case .listening:
            phase = .waiting
            return [.request(.spoken(audio: recording))]
        case .listeningForPhoto:
            phase = .waiting
            defer { heldPhoto = nil }
            return [.request(.photo(jpeg: heldPhoto ?? Data(), audio: recording))]
        default:
            return []
        }
    }
}
