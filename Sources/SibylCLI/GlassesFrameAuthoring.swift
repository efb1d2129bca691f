import Foundation
import FrameEmulator
import FrameProtocol
import Glasses
import MonocleEmulator
import Synchronization

/// An author's Frame app: the plain files of a directory.
enum FrameAppDirectory {
    static func files(in path: String) throws -> [(String, Data)] {
        let directory = WatchedDirectory.exists(path) ? URL(fileURLWithPath: path, isDirectory: true) : nil
        guard let directory else { throw CLIError("\(path) is not a directory.", hint: "Give the directory that holds your app's main.lua.") }
        let names = try WatchedDirectory(path: path).snapshot().keys.sorted()
        return try names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}

extension WatchedDirectory {
    static func exists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

extension DisplayImage {
    /// A Frame display frame: its text (1-based top-left positions, Unifont ×2 with the drawing's
    /// spacing) and bitmaps (packed palette indices, 0 transparent) in the colours of its palette.
    init(_ frame: FrameDisplayFrame, font: GlyphFont? = GlyphFont.unifont) {
        self.init()
        let colors = frame.palette.map(\.rgbColor)
        func color(_ index: Int) -> UInt32 { colors.isEmpty ? 0xFFFFFF : colors[index % colors.count] }
        for drawing in frame.drawings {
            switch drawing {
            case .text(let text, let x, let y, _, let offset, let spacing):
                drawText(text, x: x - 1, y: y - 1, color: color(1 + offset), font: font, scale: 2, spacing: spacing)
            case .bitmap(let x, let y, let width, let totalColors, let offset, let pixels):
                let bits = totalColors <= 2 ? 1 : totalColors <= 4 ? 2 : 4
                drawPackedPixels(pixels, x: x - 1, y: y - 1, width: width, bitsPerPixel: bits) { $0 == 0 ? nil : color($0 + offset) }
            }
        }
    }
}

extension FramePaletteEntry {
    /// The entry as 0xRRGGBB: the RGB it was assigned, else its 4-bit Y and 3-bit Cb/Cr widened
    /// and converted (BT.601).
    var rgbColor: UInt32 {
        if let rgb, rgb.count == 3 {
            return UInt32(clamping: rgb[0]) << 16 | UInt32(clamping: rgb[1]) << 8 | UInt32(clamping: rgb[2])
        }
        let luma = Double(y * 17), blue = Double(cb * 32) - 128, red = Double(cr * 32) - 128
        func channel(_ value: Double) -> UInt32 { UInt32(max(0, min(255, value.rounded()))) }
        return channel(luma + 1.402 * red) << 16 | channel(luma - 0.344 * blue - 0.714 * red) << 8 | channel(luma + 1.772 * blue)
    }
}

/// A device app started on the virtual Frame with a host listening from its first line: `main.lua`
/// is held back while the Frame boots, then written and the Frame reset, so what it prints (an
/// error included) reaches the console.
final class FrameAppRun: Sendable {
    let glasses: FrameEmulator
    let transport: EmulatorFrameTransport
    /// Frames shown before the app started (the pairing screen of the boot without it).
    let framesBefore: Int
    private let state = Mutex<(printed: String, joiner: FramePrintJoiner, ended: Bool)>(("", FramePrintJoiner(), false))
    private let consumer: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init(glasses: FrameEmulator, transport: EmulatorFrameTransport, framesBefore: Int) {
        self.glasses = glasses
        self.transport = transport
        self.framesBefore = framesBefore
    }

    /// Powers the Frame on and starts its `main.lua` with the host connected; `onNotification`
    /// sees every notification.
    static func start(_ glasses: FrameEmulator, mtu: Int = 247, onNotification: @escaping @Sendable (FrameNotification) -> Void = { _ in }) async throws -> FrameAppRun {
        let main = glasses.readFile("main.lua")
        let mainURL = glasses.flash.appendingPathComponent("main.lua")
        if main != nil { try FileManager.default.removeItem(at: mainURL) }
        do {
            try await glasses.powerOn()
            // The boot without main.lua ends at the pairing screen.
            let deadline = ContinuousClock.now + .seconds(10)
            while glasses.display.frames.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        } catch {
            if let main { try? main.write(to: mainURL) }
            throw error
        }
        if let main { try glasses.writeFile("main.lua", contents: main) }
        let transport = EmulatorFrameTransport(emulator: glasses, mtu: mtu)
        let run = FrameAppRun(glasses: glasses, transport: transport, framesBefore: glasses.display.frames.count)
        let events = transport.events
        run.consumer.withLock {
            $0 = Task {
                for await event in events {
                    guard case .received(_, let bytes) = event else { continue }
                    let notification = FrameNotification(bytes)
                    run.note(notification)
                    onNotification(notification)
                }
            }
        }
        try await transport.connect()
        try await transport.write(try FrameWrite.resetSignal.bytes(limits: FrameLimits(mtu: mtu)), to: .frame)
        // Once the app returns, the firmware runs the REPL loop, which picks up this chunk.
        try await Task.sleep(for: .milliseconds(250))
        try await transport.write(try FrameWrite.lua(endedProbe).bytes(limits: FrameLimits(mtu: mtu)), to: .frame)
        return run
    }

    /// What the probe prints once the REPL loop runs it, i.e. once `main.lua` has returned (it fits MTU 23).
    static let endedMarker = "\u{2}end"
    static let endedProbe = "print(\"\\2end\")"

    private func note(_ notification: FrameNotification) {
        state.withLock { state in
            if case .printed(let text) = notification, text == Self.endedMarker {
                state.ended = true
                return
            }
            state.printed += state.joiner.add(notification)
        }
    }

    /// Whether `main.lua` has returned (or failed).
    var appEnded: Bool { state.withLock { $0.ended } }

    /// What the app printed, its lines joined.
    var printed: String { state.withLock { $0.printed.trimmingCharacters(in: .whitespacesAndNewlines) } }

    /// The frames the app showed (not the pairing screen the firmware shows when it returns).
    func appFrames() -> [FrameDisplayFrame] {
        let frames = glasses.display.frames
        return Array(frames.dropFirst(framesBefore)).filter { !Self.isPairingScreen($0) }
    }

    static func isPairingScreen(_ frame: FrameDisplayFrame) -> Bool {
        frame.texts.count == 2 && ["Frame is Paired", "Ready to Pair"].contains(frame.texts[0])
    }

    func stop() async {
        await glasses.powerOff()
        consumer.withLock { $0?.cancel() }
    }
}
