import Foundation
import FrameEmulator
import SibylTestSupport
import Testing

/// The test gave up waiting (a ceiling against hangs, not a speed assertion).
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Everything a virtual Frame notified, kept in order; waits look at notifications after a mark,
/// woken by each notification that comes.
final class Link: Sendable {
    private let received = Observed<[Data]>([])
    private let reader: Task<Void, Never>
    let emulator: FrameEmulator

    init(_ emulator: FrameEmulator) {
        self.emulator = emulator
        let stream = emulator.notifications
        let received = self.received
        reader = Task { for await notification in stream { received.update { $0.append(notification) } } }
    }

    deinit { reader.cancel() }

    /// All notifications so far.
    var all: [Data] { received.value }
    /// A mark: the number of notifications so far.
    var mark: Int { received.value.count }

    /// Waits until `condition` holds for the notifications after `mark`, returning them; the
    /// timeout is a ceiling against hangs, not a speed bound.
    @discardableResult
    func wait(after mark: Int, for what: String, timeout: Duration = .seconds(120),
              until condition: ([Data]) -> Bool) async throws -> [Data] {
        do {
            return try await received.wait(for: what, within: timeout) { all in
                let tail = Array(all.dropFirst(mark))
                return condition(tail) ? tail : nil
            }
        } catch is WaitedInVain {
            throw TimedOut(what: "\(what); got \(received.value.dropFirst(mark).map(Self.describe))")
        }
    }

    /// The first print (non-data) notification after `mark`, as text.
    func print(after mark: Int, timeout: Duration = .seconds(120)) async throws -> String {
        let tail = try await wait(after: mark, for: "a print", timeout: timeout) { $0.contains { $0.first != 0x01 } }
        return String(decoding: tail.first { $0.first != 0x01 }!, as: UTF8.self)
    }

    /// Sends a Lua chunk and returns the next print.
    func lua(_ chunk: String) async throws -> String {
        let start = mark
        try await emulator.send(lua: chunk)
        return try await print(after: start)
    }

    /// `print(expression)` on the Frame.
    func evaluate(_ expression: String) async throws -> String { try await lua("print(\(expression))") }

    /// Runs `statement;print(nil)`: nil back means it succeeded, else the error text after ":1: ".
    func error(of statement: String) async throws -> String? {
        let response = try await lua("\(statement);print(nil)")
        if response == "nil" { return nil }
        guard let range = response.range(of: ":1: ") else { return response }
        return String(response[range.upperBound...])
    }

    /// Writes one data packet (0x01 + payload) and waits for the frame-msg ACK (01 00).
    func sendAcknowledged(_ packet: Data) async throws {
        let start = mark
        try await emulator.write(packet)
        try await wait(after: start, for: "the ACK of \(Self.describe(packet))") { $0.contains(Data([0x01, 0x00])) }
    }

    static func describe(_ data: Data) -> String {
        if data.first == 0x01 { return data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ") + (data.count > 8 ? "…(\(data.count))" : "") }
        return String(decoding: data, as: UTF8.self).debugDescription
    }
}

/// A virtual Frame for tests, on a fresh temporary flash.
enum TestFrame {
    /// Powers on a Frame with the given flash files, connects at `mtu`, runs `body`, powers off.
    static func with(
        files: [String: String] = [:],
        mtu: Int? = 247,
        configure: (inout FrameEmulatorConfiguration) -> Void = { _ in },
        _ body: (FrameEmulator, Link) async throws -> Void
    ) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configure(&configuration)
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        for (name, text) in files { try emulator.writeFile(name, text: text) }
        let link = Link(emulator)
        try await emulator.powerOn()
        try emulator.connect(mtu: mtu)
        do {
            try await body(emulator, link)
            await emulator.powerOff()
        } catch {
            await emulator.powerOff()
            throw error
        }
    }
}
