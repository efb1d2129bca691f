import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Routes Ctrl-C to whatever is running: it cancels the current answer instead of killing Sibyl.
final class Interrupts: Sendable {
    static let shared = Interrupts()

    private let handler = Mutex<(@Sendable () -> Void)?>(nil)
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Starts catching SIGINT; until `onInterrupt` is set, Ctrl-C still ends the process.
    func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { [weak self] in
                guard let action = self?.handler.withLock({ $0 }) else {
                    exit(130)
                }
                action()
            }
            interrupt.resume()
            // A terminated Sibyl exits normally, so the engines it started are stopped too.
            signal(SIGTERM, SIG_IGN)
            let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
            termination.setEventHandler { exit(143) }
            termination.resume()
            // So does one whose reader went away (`sibyl ask … | head -1`): SIGPIPE would kill it on
            // the spot and leave its llama-server running; ignored, the write fails and
            // `Terminal.write` exits.
            signal(SIGPIPE, SIG_IGN)
            sources = [interrupt, termination]
        }
    }

    /// What Ctrl-C does from now on.
    func onInterrupt(_ action: (@Sendable () -> Void)?) {
        handler.withLock { $0 = action }
    }
}
