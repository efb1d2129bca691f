import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input byte by byte, for a REPL on the glasses: a terminal is put in raw mode (no echo,
/// no line editing, Ctrl-C is a byte rather than a signal) so that every key reaches the glasses,
/// whose REPL echoes and edits; from a pipe, line feeds become the Enter key (carriage return).
final class KeyboardInput: Sendable {
    /// The keys as they are read; finishes at the end of input.
    let keys: AsyncStream<Data>
    private let saved = Mutex<termios?>(nil)

    init() {
        let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .unbounded)
        keys = stream
        let terminal = Terminal.stdinIsTerminal
        if terminal {
            var original = termios()
            if tcgetattr(STDIN_FILENO, &original) == 0 {
                saved.withLock { $0 = original }
                var raw = original
                raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
                raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR)
                tcsetattr(STDIN_FILENO, TCSANOW, &raw)
            }
        }
        // Blocking reads, on a thread of their own (never on Swift's cooperative pool).
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 1_024)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                var bytes = Data(buffer[0..<count])
                if !terminal {
                    bytes = Data(bytes.map { $0 == 0x0A ? 0x0D : $0 })
                }
                continuation.yield(bytes)
            }
            continuation.finish()
        }
        thread.start()
    }

    /// Puts the terminal back as it was.
    func restore() {
        saved.withLock { original in
            guard var terminal = original else { return }
            tcsetattr(STDIN_FILENO, TCSANOW, &terminal)
            original = nil
        }
    }

    deinit {
        restore()
    }
}
