import Foundation
import Synchronization
import Testing

/// The size of a fuzz run and the limits each input is held to.
enum FuzzSettings {
    /// Inputs per format: `SIBYL_FUZZ_INPUTS`, 10,000 unless set, so a developer can run a longer campaign.
    static let inputCount = ProcessInfo.processInfo.environment["SIBYL_FUZZ_INPUTS"].flatMap { Int($0) }.map { max(1, $0) } ?? 10_000

    /// `SIBYL_FUZZ_SEED` picks another deterministic run; the default keeps CI's inputs the same every time.
    static let runSeed = ProcessInfo.processInfo.environment["SIBYL_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5EED_F022

    /// One input taking longer than this is a hang.
    static let hangLimit: Duration = .seconds(10)

    /// The process's peak resident memory may not pass this.
    static let memoryLimit = 1 << 30

    /// The seed of one format's run, so formats do not share input streams.
    static func seed(for format: String) -> UInt64 {
        format.utf8.reduce(runSeed) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

/// The process's peak resident set size, in bytes: the number a machine's OOM killer would judge.
enum PeakMemory {
    /// Starts the peak again from the present size (Linux: writing 5 to /proc/self/clear_refs).
    static func reset() {
        #if os(Linux)
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        #endif
    }

    static func bytes() -> Int {
        #if os(Linux)
        // VmHWM ("high water mark") in /proc is the peak RSS in kB; ru_maxrss is the same figure, but
        // reading the kernel's own line keeps the unit unambiguous.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
        #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) // bytes on Darwin
        #endif
    }
}

/// Resolves once, with whichever of the work and the timer finishes first.
private final class FirstFinisher: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<Bool, Never>?, finished: Bool?)>((nil, nil))

    func finish(_ inTime: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.finished == nil else { return nil }
            state.finished = inTime
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: inTime)
    }

    func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            let finished = state.withLock { state -> Bool? in
                if state.finished == nil { state.waiter = continuation }
                return state.finished
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }
}

/// What one input came to.
enum FuzzOutcome: Sendable {
    /// The code under test read it.
    case accepted
    /// The code under test refused it with an error, which is the right answer to a damaged input.
    case rejected
    /// A wrong answer (such as a 5xx status for bad input), described for the test log.
    case failed(String)
}

/// One format's fuzz run: it runs inputs under the hang and memory guards, keeps the figures, and
/// prints them. A crash ends the whole test process, so it cannot be counted here: the crash
/// count printed is of inputs that got through, and the input in flight is left on disk (see `inFlight`)
/// for the regression test.
struct FuzzRun {
    let format: String
    /// Where the input in flight is written before it runs, and removed after; what is left after a
    /// crash is the input that caused it.
    let inFlight: URL
    private(set) var inputs = 0
    /// Inputs the code under test accepted (the rest were rejected with an error, which is fine).
    private(set) var accepted = 0
    private(set) var slowest: Duration = .zero
    private(set) var slowestIndex = 0
    private(set) var hangs = 0
    private(set) var overMemory = false
    /// Inputs whose outcome was `.failed`, and what the summary calls them ("5xx answers"); nil
    /// leaves them out of the summary, for code that has no wrong answer short of a crash.
    private(set) var failures = 0
    let failureName: String?
    private let started = ContinuousClock.now

    init(format: String, failureName: String? = nil) throws {
        self.format = format
        self.failureName = failureName
        // The peak counts from here: an earlier test in the same process may have used more.
        PeakMemory.reset()
        inFlight = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-fuzz/\(format)", isDirectory: true)
        try? FileManager.default.removeItem(at: inFlight)
        try FileManager.default.createDirectory(at: inFlight, withIntermediateDirectories: true)
    }

    /// Runs input `index` and counts its outcome. Returns false when the run must stop: after a hang
    /// the stuck work still holds a thread, and past the memory limit every later figure would be meaningless.
    mutating func run(index: Int, limit: Duration = FuzzSettings.hangLimit, _ body: @escaping @Sendable () async -> FuzzOutcome) async -> Bool {
        let outcome = FirstFinisher()
        let begun = ContinuousClock.now
        let work = Task {
            let result = await body()
            outcome.finish(true)
            return result
        }
        let timer = Task {
            // The per-input time limit the fuzzing enforces (what it measures), not a wait for an event.
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            outcome.finish(false)
        }
        let inTime = await outcome.wait()
        timer.cancel()
        let elapsed = ContinuousClock.now - begun
        inputs += 1
        guard inTime else {
            work.cancel()
            hangs += 1
            Issue.record("[fuzz] \(label(index)) ran over \(limit); it is kept in \(inFlight.path)")
            return false
        }
        switch await work.value {
        case .accepted:
            accepted += 1
        case .rejected:
            break
        case .failed(let description):
            failures += 1
            Issue.record("[fuzz] \(label(index)): \(description)")
        }
        if elapsed > slowest { (slowest, slowestIndex) = (elapsed, index) }
        let peak = PeakMemory.bytes()
        if peak > FuzzSettings.memoryLimit {
            overMemory = true
            Issue.record("[fuzz] \(label(index)) took peak memory to \(peak >> 20) MB; it is kept in \(inFlight.path)")
            return false
        }
        return true
    }

    /// What rebuilds an input: its format, its index, and the run's seed.
    func label(_ index: Int) -> String {
        "\(format) input \(index) (SIBYL_FUZZ_SEED=\(FuzzSettings.runSeed))"
    }

    /// Removes the in-flight folder, unless the run stopped on a hang or on memory: then the input
    /// that did it is still there.
    func cleanUp() {
        if hangs == 0, !overMemory { try? FileManager.default.removeItem(at: inFlight) }
    }

    /// The figures of the run, one line, as CI logs show them.
    var summary: String {
        let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        let failed = failureName.map { "\(failures) \($0), " } ?? ""
        return "[fuzz] \(format): \(inputs) inputs, 0 crashes, \(hangs) hangs, \(failed)\(accepted) accepted, slowest \(String(format: "%.3f", seconds(slowest))) s (input \(slowestIndex)), "
            + "peak RSS \(PeakMemory.bytes() >> 20) MB, \(String(format: "%.1f", seconds(ContinuousClock.now - started))) s"
    }

    /// Prints the summary line and cleans up.
    func finish() {
        print(summary)
        cleanUp()
    }
}
