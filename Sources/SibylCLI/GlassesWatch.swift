import Foundation
import Synchronization

/// A directory `--watch` uploads: its plain files, not hidden ones or subdirectories.
struct WatchedDirectory: Sendable {
    struct Stamp: Sendable, Hashable {
        var size: Int
        var modified: Date
    }

    let url: URL

    init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError("--watch needs a directory; \(path) is not one.")
        }
        url = URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Each file's size and modification time.
    func snapshot() -> [String: Stamp] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        var stamps: [String: Stamp] = [:]
        for name in names where !name.hasPrefix(".") && !name.hasSuffix("~") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path),
                  attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            stamps[name] = Stamp(size: (attributes[.size] as? NSNumber)?.intValue ?? 0, modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return stamps
    }

    /// Uploads the directory, soft-resets, and does so again whenever a file there changes.
    func keepUploading(to session: GlassesREPLSession) async {
        var known: [String: Stamp] = [:]
        while !Task.isCancelled {
            let now = snapshot()
            let changed = now.filter { known[$0.key] != $0.value }.keys.sorted()
            let gone = known.keys.filter { now[$0] == nil }.sorted()
            if !changed.isEmpty || !gone.isEmpty {
                known = now
                let what = (changed + gone.map { "-\($0)" }).joined(separator: ", ")
                Terminal.error(Terminal.dim("[watch] uploading \(what) to \(session.name), then a soft reset", stderr: true))
                do {
                    for name in changed {
                        try await session.put(try Data(contentsOf: url.appendingPathComponent(name)), as: name)
                    }
                    for name in gone { try await session.remove(name) }
                    try await session.softReset()
                } catch {
                    Terminal.error(Terminal.red("[watch] \(error.localizedDescription)", stderr: true) + Terminal.dim(" (saving again tries again)", stderr: true))
                }
            }
            try? await Task.sleep(for: .milliseconds(400))
        }
    }
}

/// When output last arrived.
final class QuietClock: Sendable {
    private let last = Mutex((at: ContinuousClock.now, touched: false))

    func touch() { last.withLock { $0 = (.now, true) } }

    /// Whether anything has arrived.
    var touched: Bool { last.withLock { $0.touched } }

    /// Waits until nothing has arrived for `quiet`, or `atMost` has passed.
    func waitUntilQuiet(for quiet: Duration, atMost: Duration) async {
        let deadline = ContinuousClock.now + atMost
        while ContinuousClock.now < deadline, ContinuousClock.now - last.withLock({ $0.at }) < quiet {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Counts what happened (answers, ready apps), for waits on what comes next.
final class EventCounter: Sendable {
    private struct State {
        var count = 0
        var next = 0
        var waiters: [Int: (target: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = Mutex(State())

    /// How many times it happened.
    var count: Int { state.withLock { $0.count } }

    /// It happened once more.
    func increment() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let ready = state.waiters.filter { $0.value.target <= state.count }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits until it has happened `target` times, at most `timeout` (nil: as long as it takes);
    /// false when the time ran out first.
    @discardableResult
    func wait(untilAtLeast target: Int, timeout: Duration? = nil) async -> Bool {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        let timer = timeout.map { timeout in
            Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self.state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
            }
        }
        defer { timer?.cancel() }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.count < target else { return true }
                state.waiters[id] = (target, continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        return count >= target
    }
}

/// Fired once, by a key, the end of input or Ctrl-C; waited for by the command.
final class StopSignal: Sendable {
    private let fired = EventCounter()

    func fire() { fired.increment() }

    func wait() async {
        await fired.wait(untilAtLeast: 1)
    }
}
