import Foundation
public import FrameProtocol
public import Glasses

extension FrameDriver {
    /// Uploads every file of the app; returns how many writes it took.
    func upload(_ link: GlassesLink) async throws -> Int {
        let suffix = ";print(1)"
        var writes = 0
        for (index, file) in app.files.enumerated() {
            await link.enter(.uploadingApp(file: file.name, index: index, count: app.files.count))
            let chunks = try LuaFileUpload(path: file.name, contents: file.contents).chunks(limits: limits, suffixLength: suffix.utf8.count)
            // A chunk is not sent twice (a repeated f:write would repeat its text): after a lost
            // reply the file is written again from its start, which `open(…,'w')` empties.
            var attempt = 1
            while true {
                do {
                    for chunk in chunks {
                        let reply = try await run(chunk + suffix, what: "writing \(file.name)", link, attempts: 1) { $0 == "1" }
                        writes += 1
                        guard reply == "1" else { throw GlassesError.failedOnGlasses(command: "writing \(file.name)", error: reply) }
                    }
                    break
                } catch GlassesError.timeout where attempt < options.attempts {
                    attempt += 1
                    await link.notice("no reply while writing \(file.name); writing it again from the start")
                }
            }
        }
        return writes
    }

    /// `require`s the app and waits for its ready line (when it has one).
    func start(_ link: GlassesLink) async throws {
        let command = "require('\(app.entry)')"
        let bytes = try FrameWrite.lua(command).bytes(limits: limits)
        guard let ready = app.readyLine else {
            try await link.write(bytes, to: .frame)
            return
        }
        let accepts: @Sendable (String) -> Bool = { $0 == ready || $0.hasPrefix(SibylFrameApp.errorPrefix) || LuaError(parsing: $0) != nil }
        let line = try await awaitPrint(what: "the app to start", timeout: options.startTimeout, accepting: accepts) {
            try await link.write(bytes, to: .frame)
        }
        guard line == ready else { throw GlassesError.failedOnGlasses(command: command, error: line) }
    }

    // MARK: Messages

    /// Sends a message to the running app, one acknowledged packet at a time.
    public func send(_ message: FrameMessage) async throws {
        guard let link = runningLink else { throw GlassesError.appNotRunning }
        let writes = try message.writes(limits: limits)
        let what = "message 0x\(String(message.code, radix: 16))"
        await takeSendTurn()
        defer { endSendTurn() }
        for packet in writes {
            guard runningLink != nil else { throw GlassesError.appNotRunning }
            let accepted = try await acknowledgement.wait(for: "the acknowledgement of \(what)", timeout: options.acknowledgementTimeout) {
                try await link.write(packet, to: .frame)
            }
            guard accepted else { throw GlassesError.failedOnGlasses(command: what, error: "the app could not take a packet") }
        }
    }

    /// Does what the wearer's logic asks for.
    func perform(_ actions: [SibylFrameWearer.Action], link: GlassesLink) async {
        for action in actions {
            switch action {
            case .send(let commands):
                // Without holding up the events; a failure becomes a notice.
                Task {
                    do {
                        for command in commands { try await self.send(command.message()) }
                    } catch {
                        await link.notice("could not reach the app on the glasses: \(error.localizedDescription)")
                    }
                }
            case .request(let request):
                await link.deliver(request)
            case .transferStarted:
                await link.transferStarted()
            case .recording(let forPhoto):
                await link.recordingStarted(forPhoto: forPhoto)
            case .audio(let samples):
                await link.heard(samples)
            case .notice(let text):
                await link.notice(text)
            case .captions(let paused):
                await link.captionsPaused(paused)
            case .endGesture(let deadline):
                tapTimer?.cancel()
                tapTimer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    guard !Task.isCancelled else { return }
                    await self.perform(self.endGesture(), link: link)
                }
            }
        }
    }

    private func endGesture() -> [SibylFrameWearer.Action] {
        wearer?.gestureEnded(at: .now) ?? []
    }

    private func takeSendTurn() async {
        if !sending {
            sending = true
            return
        }
        await withCheckedContinuation { sendQueue.append($0) }
    }

    private func endSendTurn() {
        if sendQueue.isEmpty {
            sending = false
        } else {
            sendQueue.removeFirst().resume()
        }
    }
}

extension FrameIdentifiers {
    /// What a Bluetooth transport needs to find and use Frame glasses: one channel whose writes go
    /// whole, with response, on a bonded link.
    public static let services = GlassesServices(
        kind: .frame, advertised: [service], isDeviceName: { isFrameName($0) },
        channels: [.init(.frame, write: hostToFrame, notify: frameToHost)],
        pairsFirst: true, bootloaderName: bootloaderName
    )
}
