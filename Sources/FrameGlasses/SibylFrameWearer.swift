import Foundation
import FrameProtocol

/// What the wearer of Frame glasses running Sibyl's app asked for.
public enum FrameRequest: Sendable, Equatable {
    /// A spoken question: signed 8-bit samples at 8 kHz.
    case spoken(audio: Data)
    /// A photo (JPEG) and the spoken question about it.
    case photo(jpeg: Data, audio: Data)
    /// The wearer tapped while a question was being answered.
    case cancel
}

/// What a ``SibylFrameWearer`` reports, in order.
public enum FrameWearerEvent: Sendable, Equatable {
    case state(FrameState)
    case notice(String)
    /// The glasses started sending a recording (for the transfer time).
    case transferStarted
    case request(FrameRequest)
}

/// The wearer's side of Sibyl's Frame app, on the host: Frame's app only reports taps and streams
/// what it is asked for, and this decides what a tap means.
///
/// - Idle (or showing an answer): one tap starts listening; a double tap takes a photo, then listens.
/// - Listening: a tap stops the microphone; the recording becomes a request.
/// - Waiting for the answer: a tap cancels it; so does a tap while a photo that never comes is awaited.
public actor SibylFrameWearer {
    public enum Phase: Sendable, Equatable {
        case idle, listening, takingPhoto, listeningForPhoto, waiting
    }

    public nonisolated let events: AsyncStream<FrameWearerEvent>
    private let continuation: AsyncStream<FrameWearerEvent>.Continuation
    public let controller: FrameController
    public private(set) var phase = Phase.idle
    private var taps = FrameTapCounter()
    private var tapTimer: Task<Void, Never>?
    private var audio = FrameStreamAssembler.audio()
    private var photo = FrameStreamAssembler.photo()
    private var heldPhoto: Data?
    private var sampleRate = 8000

    public init(controller: FrameController) {
        self.controller = controller
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Follows the controller's events until they end (run the controller alongside).
    public func run() async {
        for await event in controller.events {
            switch event {
            case .state(let state):
                if case .disconnected = state { reset() }
                if case .running = state { reset() }
                continuation.yield(.state(state))
            case .notice(let text):
                continuation.yield(.notice(text))
            case .updateFailed(let reason):
                continuation.yield(.notice("the firmware update failed: \(reason)"))
            case .printed:
                break
            case .data(let data):
                receive(data)
            }
        }
        tapTimer?.cancel()
        continuation.finish()
    }

    /// Shows an answer (or an error, in red) and goes back to idle.
    public func show(_ text: String, isError: Bool) async throws {
        phase = .idle
        try await controller.send(SibylFrameApp.text(text, colour: isError ? .red : .white))
    }

    /// Says on the glasses that the question is being answered.
    public func showThinking() async {
        try? await controller.send(SibylFrameApp.status(.thinking))
    }

    private func reset() {
        phase = .idle
        taps = FrameTapCounter()
        tapTimer?.cancel()
        audio.reset()
        photo.reset()
        heldPhoto = nil
    }

    private func receive(_ data: Data) {
        guard let flag = data.first else { return }
        switch flag {
        case SibylFrameApp.Flag.tap:
            tapped()
        case SibylFrameApp.Flag.audio, SibylFrameApp.Flag.audioEnd:
            if audio.receivedCount == 0 && flag == SibylFrameApp.Flag.audio { continuation.yield(.transferStarted) }
            if let recording = audio.add(data) { recorded(recording) }
        case SibylFrameApp.Flag.jpeg, SibylFrameApp.Flag.jpegEnd:
            if let jpeg = photo.add(data) { photographed(jpeg) }
        default:
            continuation.yield(.notice("ignored data 0x\(String(flag, radix: 16)) from the glasses"))
        }
    }

    private func tapped() {
        let now = ContinuousClock.now
        switch phase {
        case .listening, .listeningForPhoto:
            // Stop at once: the wearer is waiting for the answer.
            perform { try await self.controller.send(SibylFrameApp.stop()) }
        case .waiting:
            phase = .idle
            continuation.yield(.request(.cancel))
            perform { try await self.controller.send(SibylFrameApp.status(.idle)) }
        case .takingPhoto:
            // The photo never came (the camera failed on the glasses): a tap gives up on it.
            phase = .idle
            photo.reset()
            perform { try await self.controller.send(SibylFrameApp.status(.idle)) }
        case .idle:
            // One tap or two: wait for the gesture to end.
            taps.tap(at: now)
            tapTimer?.cancel()
            guard let deadline = taps.deadline else { return }
            tapTimer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                self.gestureEnded()
            }
        }
    }

    private func gestureEnded() {
        guard phase == .idle, let count = taps.gesture(at: .now) else { return }
        if count >= 2 {
            phase = .takingPhoto
            heldPhoto = nil
            perform {
                try await self.controller.send(SibylFrameApp.status(.takingPhoto))
                try await self.controller.send(SibylFrameApp.photo())
            }
        } else {
            startListening(status: .listening)
        }
    }

    private func startListening(status: SibylFrameApp.Status) {
        phase = status == .listening ? .listening : .listeningForPhoto
        audio.reset()
        let rate = sampleRate
        perform {
            try await self.controller.send(SibylFrameApp.status(status))
            try await self.controller.send(SibylFrameApp.listen(sampleRate: rate, bitDepth: 8))
        }
    }

    private func photographed(_ jpeg: Data) {
        guard phase == .takingPhoto else { return }
        heldPhoto = jpeg
        startListening(status: .listeningForPhoto)
    }

    private func recorded(_ recording: Data) {
        switch phase {
        case .listening:
            phase = .waiting
            continuation.yield(.request(.spoken(audio: recording)))
        case .listeningForPhoto:
            phase = .waiting
            continuation.yield(.request(.photo(jpeg: heldPhoto ?? Data(), audio: recording)))
            heldPhoto = nil
        default:
            break
        }
    }

    /// Sends to the glasses without holding up the events; a failure becomes a notice.
    private func perform(_ work: @escaping @Sendable () async throws -> Void) {
        Task {
            do { try await work() } catch { self.notice("could not reach the app on the glasses: \(error.localizedDescription)") }
        }
    }

    private func notice(_ text: String) {
        continuation.yield(.notice(text))
    }
}
