import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to the terminal: streamed text, styled hints, errors on stderr.
enum Terminal {
    /// Whether standard output is a terminal (and colour is wanted).
    static let stdoutStyled: Bool = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    static let stderrStyled: Bool = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    static let stdinIsTerminal: Bool = isatty(STDIN_FILENO) == 1
    /// The language of the terminal's locale (`LC_ALL`, `LC_MESSAGES`, `LANG`: "ko_KR.UTF-8" → "ko"); nil for C/POSIX.
    static let language: String? = locale(ProcessInfo.processInfo.environment)

    static func locale(_ environment: [String: String]) -> String? {
        let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let code = value.prefix { $0.isLetter }.lowercased()
        guard code.count == 2 || code.count == 3, code != "c" else { return nil }
        return code
    }

    /// Writes text to stdout at once (answers stream a few characters at a time).
    static func write(_ text: String) {
        write(Data(text.utf8))
    }

    /// Bytes to standard output, as they are (exports).
    static func write(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            // The reader went away (`| head`): end as a broken pipe would, with the engines stopped.
            exit(141)
        }
    }

    static func print(_ text: String = "") {
        write(text + "\n")
    }

    /// Writes a line to stderr.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    static func dim(_ text: String, stderr: Bool = false) -> String { style(text, "2", stderr: stderr) }
    static func bold(_ text: String, stderr: Bool = false) -> String { style(text, "1", stderr: stderr) }
    static func red(_ text: String, stderr: Bool = false) -> String { style(text, "31", stderr: stderr) }
    static func yellow(_ text: String, stderr: Bool = false) -> String { style(text, "33", stderr: stderr) }
    static func green(_ text: String, stderr: Bool = false) -> String { style(text, "32", stderr: stderr) }
    static func cyan(_ text: String, stderr: Bool = false) -> String { style(text, "36", stderr: stderr) }

    private static func style(_ text: String, _ code: String, stderr: Bool) -> String {
        (stderr ? stderrStyled : stdoutStyled) ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Reads all of standard input as text.
    static func readAllInput() -> String {
        String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Asks a yes/no question on the terminal; no terminal (a script) or no answer means no.
    static func confirm(_ question: String) -> Bool {
        guard stdinIsTerminal else { return false }
        try? FileHandle.standardError.write(contentsOf: Data("\(question) [y/N] ".utf8))
        return ["y", "yes"].contains(readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
    }

    /// Reads one line from the terminal without echoing it (for keys); from a pipe, reads one line.
    static func readSecretLine(prompt: String) -> String? {
        guard stdinIsTerminal else { return readLine(strippingNewline: true) }
        try? FileHandle.standardError.write(contentsOf: Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }

    /// Lines typed at the terminal, read on a thread of their own so the answer can stream meanwhile.
    static func lines(prompt: @escaping @Sendable () -> String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let requests = LineRequests()
        let thread = Thread {
            while requests.waitForRequest() {
                try? FileHandle.standardOutput.write(contentsOf: Data(prompt().utf8))
                guard let line = readLine(strippingNewline: true) else {
                    continuation.finish()
                    return
                }
                continuation.yield(line)
            }
            continuation.finish()
        }
        thread.start()
        lineRequests = requests
        return stream
    }

    /// A console's command loop, as the glasses consoles read the wearer's actions: prints the
    /// commands, then reads lines until `quit`, `exit` or the end of input. Each line is split into
    /// its command (lower-cased) and the rest; `handle` acts on it and returns false for a command it
    /// does not know, which is refused with `help` as the hint. An error is reported and the loop
    /// goes on.
    static func readCommands(help: String, handle: (_ command: String, _ argument: String?) async throws -> Bool) async {
        print(dim("commands: " + help))
        let lines = lines { "" }
        requestLine()
        for await line in lines {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
            if let command = words.first?.lowercased() {
                if command == "quit" || command == "exit" { return }
                do {
                    guard try await handle(command, words.count > 1 ? words[1] : nil) else {
                        throw CLIError("Unknown command \(command).", hint: "Commands: " + help)
                    }
                } catch {
                    report(error)
                }
            }
            requestLine()
        }
    }

    /// Asks the reader thread for the next line (after an answer is printed, so the prompt comes last).
    static func requestLine() {
        lineRequests?.request()
    }

    nonisolated(unsafe) private static var lineRequests: LineRequests?
}

/// A semaphore-like gate: the reader thread shows the prompt only when the chat loop is ready.
final class LineRequests: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = 0

    func request() {
        condition.lock()
        pending += 1
        condition.signal()
        condition.unlock()
    }

    func waitForRequest() -> Bool {
        condition.lock()
        while pending == 0 { condition.wait() }
        pending -= 1
        condition.unlock()
        return true
    }
}
