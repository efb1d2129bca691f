import Foundation
import Synchronization
import Testing
import SibylCore
import TestEvents

/// PipeDrain reads children's output with blocking reads on threads of its own, in place of
/// FileHandle.readabilityHandler, whose libdispatch sources crashed test runs when many were torn
/// down at once (swift-corelibs-libdispatch issue 949).
@Suite(.timeLimit(.minutes(10)))
struct PipeDrainTests {
    /// What one child printed, whether the end was reported (and how often), and whether the
    /// drain has let go of its callbacks (after which it can report nothing more).
    final class Collected: Sendable {
        let bytes = Mutex(Data())
        let ends = Observed(0)
        let released = Observed(false)
    }

    /// Says when it is deinitialised: captured by a drain's callbacks, it goes when the drain lets go of them.
    final class ReleaseMarker: Sendable {
        let released: Observed<Bool>
        init(_ released: Observed<Bool>) { self.released = released }
        deinit { released.update { $0 = true } }
    }

    /// Starts `/bin/sh -c script` with its output drained into a `Collected`.
    static func run(_ script: String) throws -> (Process, Collected) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        let collected = Collected()
        let marker = ReleaseMarker(collected.released)
        PipeDrain.start(pipe.fileHandleForReading, chunk: { chunk in
            collected.bytes.withLock { $0.append(chunk) }
        }, ended: {
            withExtendedLifetime(marker) { collected.ends.update { $0 += 1 } }
        })
        try process.run()
        return (process, collected)
    }

    /// Waits for the drain to report the end (an event; the ceiling is a guard against hangs only).
    static func waitForEnd(_ collected: Collected) async throws {
        try await collected.ends.wait(for: "the end of the output", within: .seconds(300)) { $0 > 0 }
    }

    @Test func readsEveryByteInOrderAndSaysWhenTheOutputEnds() async throws {
        // 300,000 bytes: several reads of the 64 KiB buffer.
        let (process, collected) = try Self.run("i=0; while [ $i -lt 30000 ]; do printf '%09d\\n' $i; i=$((i+1)); done")
        try await Self.waitForEnd(collected)
        await process.exited()
        let lines = String(decoding: collected.bytes.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 30000)
        #expect(lines.enumerated().allSatisfy { Int($0.element) == $0.offset })
        // Once the drain has let go of its callbacks it can call none again: the end was reported once.
        try await collected.released.wait(for: "the drain to let go of its callbacks") { $0 }
        #expect(collected.ends.value == 1)
    }

    @Test func manyChildrenAtOnceEachGetTheirOwnOutput() async throws {
        // Set up and torn down together, as a test run's emulators and CLI processes are.
        let children = try (0..<64).map { index in try Self.run("echo child \(index); sleep 0.\(index % 5); echo done \(index)") }
        for (index, (process, collected)) in children.enumerated() {
            try await Self.waitForEnd(collected)
            await process.exited()
            #expect(String(decoding: collected.bytes.withLock { $0 }, as: UTF8.self) == "child \(index)\ndone \(index)\n")
        }
    }

    @Test func readToEndGivesTheWholeOutputAndExitedTheStatus() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c 200000 /dev/zero | tr '\\0' x; exit 3"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = await PipeDrain.readToEnd(pipe.fileHandleForReading)
        await process.exited()
        #expect(output.count == 200_000 && output.allSatisfy { $0 == UInt8(ascii: "x") })
        #expect(process.terminationStatus == 3)
    }

    /// More children are awaited than Swift's task pool has threads (one per core), and each ends
    /// only when this test writes to it afterwards: had a wait held a pool thread, as
    /// readDataToEndOfFile or waitUntilExit do, the writing task would never have run.
    @Test func waitingForChildrenLeavesTheTaskPoolFree() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        var children: [(process: Process, input: Pipe, output: Pipe)] = []
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "read line; echo \"got $line\""]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            children.append((process, input, output))
        }
        let outputs = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            let waiting = Observed(0)
            for (index, child) in children.enumerated() {
                group.addTask {
                    waiting.update { $0 += 1 }
                    let text = String(decoding: await PipeDrain.readToEnd(child.output.fileHandleForReading), as: UTF8.self)
                    await child.process.exited()
                    return (index, text)
                }
            }
            // Every waiter has started (and, the old way, taken a thread) before the children are answered.
            try await waiting.wait(for: "every waiter to start") { $0 == count }
            for (index, child) in children.enumerated() {
                child.input.fileHandleForWriting.write(Data("\(index)\n".utf8))
                try child.input.fileHandleForWriting.close()
            }
            var outputs: [Int: String] = [:]
            for try await (index, text) in group { outputs[index] = text }
            return outputs
        }
        #expect(outputs.count == count)
        for index in 0..<count { #expect(outputs[index] == "got \(index)\n") }
    }
}
