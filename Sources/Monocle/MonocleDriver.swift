public import Foundation
public import Glasses
public import SibylCore

/// Monocle's side of a ``GlassesConnection``: from "connected" to "running Sibyl's app", then the
/// app's data messages.
///
/// On every link it enters the raw REPL, reads the firmware and FPGA versions, writes an FPGA image
/// when one is given and the glasses report another version, uploads the device app unless the
/// glasses already run the same version, and soft-resets into it. Every wait has a timeout and a
/// bounded number of attempts (the phone apps waited forever). Once the app runs, its `ast:`/`dat:`
/// /`aen:` and `ist:`/`idt:`/`ien:` messages become requests, and answers go out as `res:`/`err:`.
public actor MonocleDriver: GlassesDriver {
    /// Tunables; the defaults suit real glasses.
    public struct Options: Sendable {
        /// The firmware Sibyl's device app is written for; a different one is reported, not refused.
        public var expectedFirmware: String? = "v23.248.0754"
        /// An FPGA image to install when the glasses report another version.
        public var fpgaImage: FPGAImage?
        /// How long to wait for a REPL reply.
        public var replyTimeout: Duration = .seconds(3)
        /// How long to wait for a file write or the FPGA erase.
        public var writeTimeout: Duration = .seconds(15)
        /// Attempts for each REPL step before the link is given up.
        public var attempts = 3
        /// Pause before the first REPL bytes after connecting (the firmware needs a moment).
        public var connectDelay: Duration = .milliseconds(100)
        /// Quiet time that ends the raw-REPL greeting (a second banner may follow the first).
        public var settle: Duration = .milliseconds(150)
        /// The app's own words (prompts, its errors), sent when it starts unless English, which it has.
        public var prompts = GlassesPrompts.english

        public init() {}
    }

    public nonisolated let kind = GlassesKind.monocle
    public nonisolated let bootloaderName = MonocleIdentifiers.bootloaderName
    public nonisolated var expectedFirmware: String? { options.expectedFirmware }
    /// The app kept on the glasses.
    public nonisolated let app: DeviceApp
    /// How the driver waits and retries.
    public nonisolated let options: Options

    /// Serial bytes since the last command was sent.
    var serial: [UInt8] = []
    /// What ends the serial wait under way.
    private var serialCondition: (@Sendable ([UInt8]) -> Bool)?
    private let serialReply = ReplyWaiter<Void>()
    private var assembler = GlassesRequestAssembler()
    /// Whether the app runs on the link, so data messages are its.
    private var running = false
    /// The FPGA version read on this link.
    private var fpga: String?
    /// The answer under way as far as it was sent (`res:` chunks add to what the app shows).
    private var answerSent = ""
    /// Live captions are on: `dat:` is a stream, not a question. Asked for before the app said
    /// `rdy:` (`appReady`), `cap:1` goes with that `rdy:`.
    private var captioning = false
    /// The running app has said `rdy:` (it takes messages).
    private var appReady = false

    /// A driver that keeps `app` on the glasses.
    public init(app: DeviceApp, options: Options = Options()) {
        self.app = app
        self.options = options
    }

    // MARK: GlassesDriver

    public func prepare(_ link: GlassesLink) async throws -> String? {
        running = false
        assembler = GlassesRequestAssembler()
        try await Task.sleep(for: options.connectDelay)
        try await enterRawREPL(link)
        await link.enter(.preparing(.checkingFirmware))
        let firmware = try await query("import device;print(device.VERSION);del(device)", what: "the firmware version", link)
        await link.enter(.preparing(.checkingFPGA))
        fpga = try await query("import fpga;print(fpga.read(2,12));del(fpga)", what: "the FPGA version", link)
        return firmware
    }

    /// `update.micropython()`: the app firmware restarts into the bootloader (`DfuTarg`).
    public func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws {
        serial.removeAll()
        try await link.write(RawREPL.command("import update;update.micropython()"), to: .serial)
        // Success is the link dropping (which ends this wait); an exception comes back as a reply.
        try await wait(for: "the glasses to restart into their bootloader", timeout: timeout) { RawREPL.reply(in: $0)?.succeeded == false }
        throw GlassesError.failedOnGlasses(command: "update.micropython()", error: RawREPL.reply(in: serial)?.error ?? "")
    }

    public func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo? {
        if let image = options.fpgaImage, fpga != image.version {
            if link.maximumWriteLength > 100 {
                try await updateFPGA(image, link)
                return nil // the glasses restart; the next link continues
            }
            await link.notice("the FPGA needs \(image.version) but the link is too small to update it")
        }
        await link.enter(.preparing(.checkingApp))
        let installed = try await execute(DeviceApp.versionQuery, what: "the app version", timeout: options.replyTimeout, link)
        let uploaded = installed.output.trimmingCharacters(in: .whitespacesAndNewlines) != app.version
        var uploadTime: Duration?
        if uploaded {
            let started = ContinuousClock.now
            try await upload(link)
            uploadTime = ContinuousClock.now - started
        }
        await link.enter(.starting)
        serial.removeAll()
        // Ready for the app's first messages (its rdy:) before it starts.
        running = true
        appReady = false
        try await link.write(Data(RawREPL.softReset), to: .serial)
        return GlassesDeviceInfo(
            firmware: firmware, fpga: fpga, app: app.version, uploaded: uploaded, maximumWriteLength: link.maximumWriteLength, uploadTime: uploadTime
        )
    }

    public func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async {
        switch channel {
        case .serial:
            serial.append(contentsOf: bytes)
            if let condition = serialCondition, condition(serial) {
                serialCondition = nil
                serialReply.offer(())
            }
        case .data:
            guard running else { return }
            guard let message = AppMessage(packet: bytes) else {
                await link.notice("ignored an unknown data message: \(bytes.prefix(8).map { String(format: "%02x", $0) }.joined())")
                return
            }
            if message.command == .ready {
                defer { appReady = true }
                if !appReady, options.prompts != .english {
                    for prompts in AppMessage.prompts(options.prompts, maximumLength: link.maximumWriteLength) {
                        try? await send(prompts, link: link)
                    }
                }
                if captioning, !appReady {
                    try? await send(AppMessage(.captions, Data("1".utf8)), link: link)
                    return
                }
                // After `cap:0` (or a restart of the app) the app takes questions again.
                captioning = false
            }
            if captioning {
                // Live captions: the samples go on and on, and are never a question.
                switch message.command {
                case .audioData: await link.heard(message.payload)
                case .captionsPaused: await link.captionsPaused(message.payload == Data("1".utf8))
                default: break
                }
                return
            }
            switch message.command {
            case .audioStart, .imageStart:
                answerSent = ""
                await link.transferStarted()
                if message.command == .audioStart { await link.recordingStarted(forPhoto: false) }
            case .imageEnd:
                await link.recordingStarted(forPhoto: true)
            case .audioData:
                await link.heard(message.payload)
            default:
                break
            }
            if let request = assembler.consume(message) { await link.deliver(request) }
        case .frame:
            break // not Monocle's
        }
    }

    public func linkLost(_ reason: String) async {
        running = false
        captioning = false
        appReady = false
        assembler = GlassesRequestAssembler()
        serialCondition = nil
        serialReply.fail(GlassesError.disconnected(reason))
    }

    /// Sends the answer as `res:` (or `err:`) messages that each fit the link: what the app does not
    /// show yet when it shows the start of the answer already, else `clr:` and all of it.
    public func show(_ text: String, isError: Bool, link: GlassesLink) async throws {
        defer { answerSent = "" }
        try await send(answer: text, isError: isError, link: link)
    }

    /// Sends what the answer written so far adds to what was sent.
    public func showAnswer(soFar text: String, link: GlassesLink) async throws {
        guard text != answerSent, !text.isEmpty else { return }
        try await send(answer: text, isError: false, link: link)
    }

    private func send(answer text: String, isError: Bool, link: GlassesLink) async throws {
        var rest = Substring(text)
        if !answerSent.isEmpty, !isError, text.hasPrefix(answerSent) {
            rest = text.dropFirst(answerSent.count)
            if rest.isEmpty { return }
        } else {
            // A new answer (or its start changed, or an error replaces it): on a cleared screen.
            try await send(AppMessage(.clear), link: link)
        }
        answerSent = text
        for message in AppMessage.chunks(of: String(rest), as: isError ? .error : .response, maximumLength: link.maximumWriteLength) {
            try await send(message, link: link)
        }
    }

    /// `hrd:`: the words heard so far, their end when they do not fit one message.
    public func showHeard(_ text: String, link: GlassesLink) async {
        let room = link.maximumWriteLength - 4
        var shown = Substring(text)
        while shown.utf8.count > room { shown = shown.dropFirst() }
        try? await send(AppMessage(.heard, Data(shown.utf8)), link: link)
    }

    /// `stp:`: the app ends the recording with `aen:`, as a tap would.
    public func stopListening(_ link: GlassesLink) async {
        try? await send(AppMessage(.stopListening), link: link)
    }

    /// `cap:1`: the app records on and on, sending `dat:` until `cap:0`; a tap pauses (`cpp:1`) and resumes (`cpp:0`).
    public func startCaptions(_ link: GlassesLink) async throws {
        assembler = GlassesRequestAssembler()
        captioning = true
        // Not ready yet: the app's `rdy:` brings `cap:1`.
        guard appReady else { return }
        try await send(AppMessage(.captions, Data("1".utf8)), link: link)
    }

    /// `cap:0`: the app stops recording and is ready for questions (`rdy:`).
    public func stopCaptions(_ link: GlassesLink) async {
        // Asked before the app was ready: `cap:1` never went, and nothing is to end.
        guard appReady else { return captioning = false }
        try? await send(AppMessage(.captions, Data("0".utf8)), link: link)
    }

    /// `cpt:`: the lines, newest last, as many of the newest as fit one message (the app wraps
    /// them and shows the last three rows). A pause shows nothing new: the app says it is paused.
    public func showCaptions(_ lines: [String], paused: Bool, link: GlassesLink) async {
        guard !paused else { return }
        let room = link.maximumWriteLength - 4
        var text = Substring(lines.joined(separator: "\n"))
        while text.utf8.count > room { text = text.dropFirst() }
        try? await send(AppMessage(.captionText, Data(text.utf8)), link: link)
    }

    /// `pin:`: the app shows that the question is being answered (and echoes `pon:`).
    public func showThinking(_ link: GlassesLink) async {
        try? await send(AppMessage(.ping, Data(String(UUID().uuidString.prefix(8)).utf8)), link: link)
    }

    /// Sends one message to the running app.
    public func send(_ message: AppMessage, link: GlassesLink) async throws {
        guard running else { throw GlassesError.appNotRunning }
        let packet = message.packet
        guard packet.count <= link.maximumWriteLength else {
            throw GlassesError.transport("a \(packet.count)-byte message does not fit the \(link.maximumWriteLength)-byte link")
        }
        try await link.write(packet, to: .data)
    }

    // MARK: Waiting for serial bytes

    /// Waits until the serial bytes since the last command satisfy `isSatisfied`.
    func wait(for what: String, timeout: Duration, until isSatisfied: @escaping @Sendable ([UInt8]) -> Bool) async throws {
        if isSatisfied(serial) { return }
        serialCondition = isSatisfied
        try await serialReply.wait(for: what, timeout: timeout)
    }
}
