import Foundation
import Glasses
import NIOCore
import SecureDFU
import SibylCore

// Inputs, in order.
extension MonocleEmulator {
    func handle(_ input: Input) {
        switch input {
        case .channel(let channel):
            self.channel = channel
            // Tell the new interpreter what the world looks like, then what was queued.
            var hello: [EmulatorFrame] = [EmulatorFrame(.connection, Array((clientConnected ? "1" : "0").utf8))]
            hello += microphone.map { EmulatorFrame(.microphone, $0) }
            if let photoBytes { hello.append(EmulatorFrame(.photo, photoBytes)) }
            for frame in hello + pendingFrames { EmulatorLink.send(frame, on: channel) }
            pendingFrames = []
        case .frame(let id, let frame):
            guard let channel, ObjectIdentifier(channel) == id else { return }
            receive(frame)
        case .closed(let id):
            if let channel, ObjectIdentifier(channel) == id {
                self.channel = nil
                // Nothing more comes over this link: a sync waiting for it has all there was.
                for waiting in syncs.values { waiting.resume() }
                syncs = [:]
            }
        case .printed(let from, let data):
            guard from == generation else { return }
            let wasRunning = frontEnd.phase != .idle
            perform(frontEnd.interpreterPrinted([UInt8](data)))
            // An interrupt held back until the interpreter's link came up was meant for code that
            // has now ended (its output can overtake the link's arrival): it must not hit the next command.
            if wasRunning && frontEnd.phase == .idle { pendingInterrupt = false }
        case .stderr(let data):
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") { eventSink.yield(.log(String(line))) }
        case .exited(let from):
            guard from == generation, process != nil else { return }
            dropClient(reason: "the glasses restarted")
            // The interpreter died on its own: like a crash on the device, the glasses restart;
            // unless it dies as soon as it starts (a broken firmware stub), which would only spin.
            quickExits = ContinuousClock.now - lastStart < .seconds(2) ? quickExits + 1 : 0
            guard quickExits < 3 else {
                eventSink.yield(.log("the interpreter exits as soon as it starts (3 times in a row); the glasses stay off"))
                stopInterpreter()
                return
            }
            eventSink.yield(.log("the interpreter exited; restarting the glasses"))
            try? startInterpreter(afterSoftReset: false)
        }
    }

    func receive(_ frame: EmulatorFrame) {
        switch frame.kind {
        case .dataNotify:
            sentMessages.append(Data(frame.payload))
            eventSink.yield(.dataSent(Data(frame.payload)))
            guard clientConnected else { return }
            if notificationsToDrop > 0 {
                notificationsToDrop -= 1
                return
            }
            client?.yield(.received(.data, Data(frame.payload)))
        case .display:
            let shown = DisplayFrame(time: ContinuousClock.now - started, json: frame.payload)
            displayLog.append(shown)
            eventSink.yield(.display(shown))
        case .led:
            let info = (try? JSONSerialization.jsonObject(with: Data(frame.payload))) as? [String: Any] ?? [:]
            eventSink.yield(.led(info["led"] as? String ?? "?", on: info["on"] as? Bool ?? false))
        case .fpgaErase:
            fpgaFlash = Data()
        case .fpgaWrite:
            fpgaFlash.append(contentsOf: frame.payload)
        case .reset:
            if fpgaFlash.suffix(4) == Data("done".utf8), let updated = configuration.fpgaAfterUpdate {
                fpgaVersion = updated
            }
            dropClient(reason: "the glasses restarted")
            try? startInterpreter(afterSoftReset: false)
        case .bootloader:
            enterBootloader()
        case .boot:
            // The interpreter's end of the link is set up: an interrupt can no longer cut it short.
            linked = true
            if pendingInterrupt { interrupt() }
        case .synced:
            let token = frame.payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            syncs.removeValue(forKey: token)?.resume()
        case .executeRaw, .executeFriendly, .executePasted, .dataWrite, .touchDown, .touchUp, .connection, .microphone, .photo, .interrupt, .sync:
            break
        }
    }

    func perform(_ actions: [REPLFrontEnd.Action]) {
        for action in actions {
            switch action {
            case .output(let bytes):
                serialLog.append(contentsOf: bytes)
                eventSink.yield(.serial(String(decoding: bytes, as: UTF8.self)))
                guard clientConnected else { continue }
                for piece in Data(bytes).pieces(of: configuration.maximumWriteLength) {
                    client?.yield(.received(.serial, piece))
                }
            case .execute(let code, let raw):
                send(EmulatorFrame(raw ? .executeRaw : .executeFriendly, Array(code.utf8)))
            case .executePasted(let code):
                send(EmulatorFrame(.executePasted, Array(code.utf8)))
            case .interrupt:
                // Until the interpreter says its link is up, hold it: before, MicroPython may not
                // have its SIGINT handler yet (the signal would kill the host Python), and a ^C in
                // the middle of connecting would leave a half-made link.
                if channel == nil || !linked { pendingInterrupt = true } else { interrupt() }
            case .softReset:
                try? startInterpreter(afterSoftReset: true)
            case .safeModeReset:
                try? startInterpreter(afterSoftReset: true, safeMode: true)
            }
        }
    }

    /// ^C for running code: an 'I' frame, raised as KeyboardInterrupt where the program next polls
    /// the firmware (the stubs do between bits of work). Code that never polls gets SIGINT after a
    /// second. That is a last resort: this MicroPython raises it straight from the signal handler,
    /// wherever the interpreter is, which can leave a lock held.
    func interrupt() {
        pendingInterrupt = false
        send(EmulatorFrame(.interrupt))
        interrupts += 1
        let (which, current) = (interrupts, generation)
        Task {
            try? await Task.sleep(for: .seconds(1))
            self.forceInterrupt(which, generation: current)
        }
    }

    func forceInterrupt(_ which: Int, generation current: Int) {
        guard which == interrupts, current == generation, frontEnd.phase != .idle, let process, process.isRunning else { return }
        eventSink.yield(.log("the running code ignored ^C for a second; sending SIGINT"))
        kill(process.processIdentifier, SIGINT)
    }

    func send(_ frame: EmulatorFrame) {
        if let channel {
            EmulatorLink.send(frame, on: channel)
        } else if frame.kind != .connection && frame.kind != .microphone && frame.kind != .photo {
            pendingFrames.append(frame)
        }
    }
}

extension MonocleEmulator {
    /// Waits until everything the interpreter sent over its link before now has been taken in:
    /// its drawings and data arrive on a socket, its printing on a pipe, and the printing can
    /// overtake them, even the link's own arrival. A round trip on the link settles it: sent at
    /// once, or, while a running interpreter's link has not arrived yet, as soon as it does (at
    /// most `ceiling` long, against an interpreter that no longer answers).
    public func settle(ceiling: Duration = .seconds(10)) async {
        guard channel != nil || process != nil else { return }
        nextSync &+= 1
        let token = nextSync
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: ceiling)
            await self?.syncAnswered(token)
        }
        await withCheckedContinuation { continuation in
            syncs[token] = continuation
            send(EmulatorFrame(.sync, withUnsafeBytes(of: token.bigEndian) { Array($0) }))
        }
        timeout.cancel()
    }

    /// A sync answered, or given up on.
    func syncAnswered(_ token: UInt32) {
        syncs.removeValue(forKey: token)?.resume()
    }
}
