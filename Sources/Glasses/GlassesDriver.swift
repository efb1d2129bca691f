public import Foundation
public import SibylCore

/// The protocol one kind of glasses speaks, for a ``GlassesConnection``: the connection owns the
/// link (connecting, reconnecting, the state, firmware updates, the events), the driver knows
/// what to say over it.
///
/// A connection calls a driver in this order on each link: ``prepare(_:)`` (ready the glasses
/// and read their firmware version), then either ``restartIntoBootloader(_:timeout:)`` (when a
/// firmware package is to be installed) or ``startApp(_:firmware:)``; ``received(_:on:link:)``
/// with every notification in between and after; ``linkLost(_:)`` when the link drops. Replies a
/// driver waits for end with the link (``GlassesError/disconnected(_:)``).
public protocol GlassesDriver: Actor {
    /// Which glasses it drives.
    nonisolated var kind: GlassesKind { get }
    /// The name the glasses' DFU bootloader advertises (for what the connection tells the user).
    nonisolated var bootloaderName: String { get }
    /// The firmware the driver's app is written for; another version is reported, not refused.
    nonisolated var expectedFirmware: String? { get }

    /// Readies freshly connected glasses (stops what runs, gets a REPL) and returns their firmware
    /// version (nil when they do not say).
    func prepare(_ link: GlassesLink) async throws -> String?
    /// Asks the running firmware to restart into its DFU bootloader. Success is the link dropping
    /// (``GlassesError/disconnected(_:)``); a refusal or `timeout` without the drop is thrown.
    func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws
    /// Brings the device app up (uploading it when the glasses hold another version) and returns
    /// what the glasses report once it runs; nil when the glasses restart instead (a new FPGA image),
    /// for the next link to go on.
    func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo?
    /// One notification from the glasses.
    func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async
    /// The link is gone (or the connection stops): replies waited for fail with `reason`.
    func linkLost(_ reason: String) async
    /// Shows an answer on the running app, or an error (in red).
    func show(_ text: String, isError: Bool, link: GlassesLink) async throws
    /// Tells the running app that the question is being answered.
    func showThinking(_ link: GlassesLink) async
    /// Shows the answer written so far (the whole text each time, growing); ``show(_:isError:link:)``
    /// follows with the whole answer.
    func showAnswer(soFar text: String, link: GlassesLink) async throws
    /// Shows the words heard so far while the wearer speaks.
    func showHeard(_ text: String, link: GlassesLink) async
    /// Ends the recording under way as the wearer's own ending would (the rest and the request follow).
    func stopListening(_ link: GlassesLink) async
    /// Live captions: the glasses stream their microphone until ``stopCaptions(_:)`` (samples come as
    /// ``GlassesLink/heard(_:)``), and a tap pauses and resumes (``GlassesLink/captionsPaused(_:)``).
    func startCaptions(_ link: GlassesLink) async throws
    /// Ends live captions: the microphone stops and the app is ready for questions again.
    func stopCaptions(_ link: GlassesLink) async
    /// Shows the caption lines (oldest first; the last may still be forming), or that captions are paused.
    func showCaptions(_ lines: [String], paused: Bool, link: GlassesLink) async
}

extension GlassesDriver {
    /// Glasses that cannot show an answer as it is written show it whole at the end.
    public func showAnswer(soFar text: String, link: GlassesLink) async throws {}
    /// Glasses without a way to show words while listening show nothing.
    public func showHeard(_ text: String, link: GlassesLink) async {}
    /// Glasses whose recording only the wearer ends keep recording.
    public func stopListening(_ link: GlassesLink) async {}
    /// Glasses whose app cannot stream its microphone on and on have no live captions.
    public func startCaptions(_ link: GlassesLink) async throws { throw GlassesError.captionsUnsupported }
    public func stopCaptions(_ link: GlassesLink) async {}
    public func showCaptions(_ lines: [String], paused: Bool, link: GlassesLink) async {}
}

/// One link of a ``GlassesConnection`` as its driver sees it: writes, and what the driver reports.
///
/// A link outlives its connection's link only as a stale value: once the glasses disconnect, its
/// writes fail and what it reports is dropped.
public struct GlassesLink: Sendable {
    private weak var connection: GlassesConnection?
    /// Which link of the connection this is (each connection counts up).
    public let generation: Int
    /// The largest write the link takes (ATT MTU − 3).
    public let maximumWriteLength: Int

    init(connection: GlassesConnection, generation: Int, maximumWriteLength: Int) {
        self.connection = connection
        self.generation = generation
        self.maximumWriteLength = maximumWriteLength
    }

    /// Writes to a channel of the glasses, as the channel's writes go (see ``GlassesTransport``).
    public func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        guard let connection else { throw GlassesError.disconnected("the connection is gone") }
        try await connection.write(bytes, to: channel, on: generation)
    }

    /// Reports a step of bringing the app up (not `running` or `disconnected`: those are the connection's).
    public func enter(_ phase: GlassesPhase) async {
        await connection?.driverEntered(phase, on: generation)
    }

    /// Reports something worth a line in the log (a retry, a skipped update).
    public func notice(_ text: String) async {
        await connection?.driverReported(.notice(text), on: generation)
    }

    /// Reports that the glasses started sending a recording or a photo.
    public func transferStarted() async {
        await connection?.driverReported(.transferStarted, on: generation)
    }

    /// Reports that the glasses started recording a question (`forPhoto`: about the photo just sent).
    public func recordingStarted(forPhoto: Bool) async {
        await connection?.driverReported(.recording(forPhoto: forPhoto), on: generation)
    }

    /// Reports samples of the recording under way (signed 8-bit, 8 kHz) as they arrive.
    public func heard(_ samples: Data) async {
        await connection?.driverReported(.audio(samples), on: generation)
    }

    /// Reports that the wearer paused (true) or resumed (false) live captions.
    public func captionsPaused(_ paused: Bool) async {
        await connection?.driverReported(.captionsPaused(paused), on: generation)
    }

    /// Reports what the wearer asked for.
    public func deliver(_ request: GlassesRequest) async {
        await connection?.driverReported(.request(request), on: generation)
    }
}
