public import Foundation
public import FrameProtocol
public import Glasses
public import SibylCore

/// Frame's side of a ``GlassesConnection``: from "connected" to "running a device app", then the
/// app's messages.
///
/// On every link it breaks whatever runs (break, reset, break), reads the firmware version, uploads
/// the app unless the glasses hold the same version, and starts it (waiting for its ready line).
/// Messages go out in acknowledged packets, one message at a time. What the running app sends goes
/// to the wearer's tap logic (``SibylFrameWearer``), which makes requests of it; a driver without
/// one (another app) passes it on as ``appData``.
public actor FrameDriver: GlassesDriver {
    /// Tunables; the defaults suit real glasses.
    public struct Options: Sendable {
        /// The firmware the app is written for; a different one is reported, not refused.
        public var expectedFirmware: String?
        /// How long to wait for the print that ends a REPL command.
        public var replyTimeout: Duration = .seconds(3)
        /// How long to wait for a message packet's acknowledgement.
        public var acknowledgementTimeout: Duration = .seconds(3)
        /// How long the app may take to print its ready line.
        public var startTimeout: Duration = .seconds(10)
        /// Attempts for each REPL step before the link is given up.
        public var attempts = 3
        /// Pause after connecting and after each break or reset (the firmware needs a moment).
        public var signalPause: Duration = .milliseconds(200)
        /// The app's own words (statuses, its errors), sent when it starts unless English, which it has.
        public var prompts = GlassesPrompts.english

        public init() {}
    }

    public nonisolated let kind = GlassesKind.frame
    public nonisolated let bootloaderName = FrameIdentifiers.bootloaderName
    public nonisolated var expectedFirmware: String? { options.expectedFirmware }
    /// The app kept on the glasses.
    public nonisolated let app: FrameDeviceApp
    /// How the driver waits and retries.
    public nonisolated let options: Options
    /// What the running app sends (without the firmware's 0x01), when there is no wearer to take it.
    public nonisolated let appData: AsyncStream<Data>
    let appDataContinuation: AsyncStream<Data>.Continuation

    /// The wearer's tap logic for Sibyl's app; nil for another app.
    var wearer: SibylFrameWearer?
    var tapTimer: Task<Void, Never>?
    /// The link's limits (meaningful once connected).
    var limits = FrameLimits(mtu: 23)
    /// The link the app runs on.
    var runningLink: GlassesLink?
    /// Which prints end the print wait under way; others are strays (a late line from an app that was just stopped).
    private var printFilter: @Sendable (String) -> Bool = { _ in true }
    private let printReply = ReplyWaiter<String>()
    let acknowledgement = ReplyWaiter<Bool>()
    /// Message sends wait here for the one before to finish: packets of two messages must not mix.
    var sending = false
    var sendQueue: [CheckedContinuation<Void, Never>] = []
    /// The newest answer-so-far waiting to be sent ("" when none waits); nil when none is being sent.
    var answerSoFar: String?
    /// The caption screen waiting to be sent while another is (nil: none is being sent).
    var captionsPending: (lines: [String], paused: Bool)?

    /// A driver that keeps `app` on Frame; `wearer` turns what Sibyl's app sends into requests
    /// (nil: `appData` gets it instead).
    public init(app: FrameDeviceApp = .sibyl(), options: Options = Options(), wearer: SibylFrameWearer? = SibylFrameWearer()) {
        self.app = app
        self.options = options
        self.wearer = wearer
        (appData, appDataContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The link's limits (meaningful once connected).
    public var currentLimits: FrameLimits { limits }

    // MARK: GlassesDriver

    public func prepare(_ link: GlassesLink) async throws -> String? {
        runningLink = nil
        limits = FrameLimits(mtu: link.maximumWriteLength + 3)
        try await Task.sleep(for: options.signalPause)
        await link.enter(.preparing(.interrupting))
        for signal in [FrameWrite.breakSignal, .resetSignal, .breakSignal] {
            try await link.write(try signal.bytes(limits: limits), to: .frame)
            try await Task.sleep(for: options.signalPause)
        }
        await link.enter(.preparing(.checkingFirmware))
        return try await query("print(frame.FIRMWARE_VERSION)", what: "the firmware version", link) { $0.hasPrefix("v") }
    }

    /// `frame.update()`: Frame shows "Frame Update" and restarts into its bootloader.
    public func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws {
        let code = "frame.update()"
        let bytes = try FrameWrite.lua(code).bytes(limits: limits)
        // Success is the link dropping (which ends this wait as `disconnected`); an error prints.
        let reply = try await awaitPrint(what: "Frame to restart into its bootloader", timeout: timeout, accepting: { _ in true }) {
            try await link.write(bytes, to: .frame)
        }
        throw GlassesError.failedOnGlasses(command: code, error: reply)
    }

    public func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo? {
        await link.enter(.preparing(.checkingApp))
        let installed = try await query(FrameDeviceApp.versionQuery, what: "the app version", link) { $0 == "-" || $0.hasPrefix("sha256:") }
        let uploaded = installed != app.version
        var uploadTime: Duration?
        var writes = 0
        if uploaded {
            let started = ContinuousClock.now
            writes = try await upload(link)
            uploadTime = ContinuousClock.now - started
        }
        await link.enter(.starting)
        try await start(link)
        try Task.checkCancellation()
        runningLink = link
        wearer?.reset()
        if options.prompts != .english, app.readyLine == SibylFrameApp.readyLine {
            try await send(SibylFrameApp.prompts(options.prompts))
        }
        return GlassesDeviceInfo(
            firmware: firmware, app: app.version, uploaded: uploaded, maximumWriteLength: link.maximumWriteLength,
            uploadTime: uploadTime, uploadWrites: writes
        )
    }

    public func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async {
        guard channel == .frame else { return }
        let notification = FrameNotification(bytes)
        switch notification {
        case .printed(let text):
            if printReply.isWaiting, printFilter(text) {
                printReply.offer(text)
                return
            }
            guard runningLink != nil else { return }
            if text.hasPrefix(SibylFrameApp.errorPrefix) {
                await link.notice("the app on the glasses failed: \(text.dropFirst(SibylFrameApp.errorPrefix.count))")
            }
        case .data(let payload):
            if notification.isAcknowledgement || notification.isNegativeAcknowledgement, acknowledgement.offer(notification.isAcknowledgement) {
                return
            }
            guard runningLink != nil else { return }
            if wearer != nil {
                await perform(wearer?.received(payload, at: .now) ?? [], link: link)
            } else {
                appDataContinuation.yield(payload)
            }
        }
    }

    public func linkLost(_ reason: String) async {
        runningLink = nil
        tapTimer?.cancel()
        wearer?.reset()
        printReply.fail(GlassesError.disconnected(reason))
        acknowledgement.fail(GlassesError.disconnected(reason))
    }

    /// Shows an answer (or an error, in red); the wearer may ask again.
    public func show(_ text: String, isError: Bool, link: GlassesLink) async throws {
        wearer?.answerShown()
        // What was written so far and not sent yet is not sent after the whole.
        if answerSoFar != nil { answerSoFar = "" }
        try await send(SibylFrameApp.text(text, colour: isError ? .red : .white))
    }

    /// The app's "thinking" status line.
    public func showThinking(_ link: GlassesLink) async {
        try? await send(SibylFrameApp.status(.thinking))
    }

    /// The answer written so far, the whole text each time; while one is being sent, only the
    /// newest of those that come meanwhile follows it.
    public func showAnswer(soFar text: String, link: GlassesLink) async throws {
        let sending = answerSoFar != nil
        answerSoFar = text
        guard !sending else { return }
        defer { answerSoFar = nil }
        while let next = answerSoFar, !next.isEmpty {
            answerSoFar = ""
            try await send(SibylFrameApp.text(next))
        }
    }

    /// The words heard so far, in sky blue, while the wearer speaks.
    public func showHeard(_ text: String, link: GlassesLink) async {
        guard wearer?.phase == .listening || wearer?.phase == .listeningForPhoto else { return }
        try? await send(SibylFrameApp.text(text, colour: .skyBlue))
    }

    /// Stops the microphone as the wearer's tap would.
    public func stopListening(_ link: GlassesLink) async {
        await perform(wearer?.stopListening(at: .now) ?? [], link: link)
    }

    /// Live captions: the microphone streams until ``stopCaptions(_:)``; a tap pauses and resumes.
    public func startCaptions(_ link: GlassesLink) async throws {
        guard wearer != nil else { throw GlassesError.captionsUnsupported }
        await perform(wearer?.startCaptions() ?? [], link: link)
        try await send(SibylFrameApp.text(options.prompts.captions, colour: .grey))
    }

    /// Ends live captions: the microphone stops and the idle status shows.
    public func stopCaptions(_ link: GlassesLink) async {
        captionsPending = nil
        await perform(wearer?.stopCaptions() ?? [], link: link)
    }

    /// The last three lines as they wrap on the display (or a paused note); while one screen is
    /// being sent, only the newest of those that come meanwhile follows it.
    public func showCaptions(_ lines: [String], paused: Bool, link: GlassesLink) async {
        guard wearer?.phase == .captioning || wearer?.phase == .captionsPaused else { return }
        let wrapped = lines.flatMap { SibylFrameApp.wrap($0) }.suffix(Self.captionLines)
        let sending = captionsPending != nil
        captionsPending = (Array(wrapped), paused)
        guard !sending else { return }
        while let pending = captionsPending {
            let shown = pending.lines, paused = pending.paused
            do {
                try await send(paused
                    ? SibylFrameApp.text((shown + [options.prompts.captionsPaused]).joined(separator: "\n"), colour: .grey)
                    : SibylFrameApp.text(shown.joined(separator: "\n")))
            } catch {
                await link.notice("could not show the captions: \(error.localizedDescription)")
            }
            if let pending = captionsPending, pending.lines == shown, pending.paused == paused { captionsPending = nil }
        }
    }

    /// How many caption lines the display shows.
    static let captionLines = 3

    // MARK: The REPL

    /// Runs a command that prints one value; retries after a timeout.
    private func query(_ code: String, what: String, _ link: GlassesLink, accepting accepts: @escaping @Sendable (String) -> Bool) async throws -> String {
        let reply = try await run(code, what: what, link, accepting: accepts)
        if let error = LuaError(parsing: reply), error.source == LuaError.chunkName(ofSource: code) {
            throw GlassesError.failedOnGlasses(command: code, error: error.message)
        }
        return reply
    }

    /// Sends a chunk and returns what it printed (a reply `accepts` takes, or the chunk's error),
    /// retrying after a timeout.
    func run(_ code: String, what: String, _ link: GlassesLink, attempts: Int? = nil, accepting accepts: @escaping @Sendable (String) -> Bool) async throws -> String {
        let bytes = try FrameWrite.lua(code).bytes(limits: limits)
        let chunkName = LuaError.chunkName(ofSource: code)
        let filter: @Sendable (String) -> Bool = { accepts($0) || LuaError(parsing: $0)?.source == chunkName }
        var attempt = 1
        while true {
            do {
                return try await awaitPrint(what: what, timeout: options.replyTimeout, accepting: filter) { try await link.write(bytes, to: .frame) }
            } catch GlassesError.timeout where attempt < (attempts ?? options.attempts) {
                attempt += 1
                await link.notice("no reply for \(what); trying again")
            }
        }
    }

    /// Waits for a print `accepts` takes, after `action` (which makes it).
    func awaitPrint(
        what: String, timeout: Duration, accepting accepts: @escaping @Sendable (String) -> Bool, after action: @escaping @Sendable () async throws -> Void
    ) async throws -> String {
        printFilter = accepts
        return try await printReply.wait(for: what, timeout: timeout, after: action)
    }
}
