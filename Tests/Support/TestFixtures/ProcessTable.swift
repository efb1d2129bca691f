import Foundation

/// What Linux's /proc says about running processes: for tests and benchmarks that check which
/// engines a run left behind, or how much memory they hold.
public enum ProcessTable {
    /// Every process id now running.
    public static func all() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
    }

    /// The parent of a process: the fourth field of /proc/PID/stat, after the command in parentheses.
    public static func parent(of pid: Int32) -> Int32? {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The processes whose parent is `parent`.
    public static func children(of parent: Int32) -> [Int32] {
        all().filter { self.parent(of: $0) == parent }
    }

    /// A process's command line: the program, then its arguments.
    public static func commandLine(of pid: Int32) -> [String] {
        (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A process's environment, as `NAME=value` entries.
    public static func environment(of pid: Int32) -> [String] {
        (FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A memory figure of /proc/PID/status in kB: `VmRSS` (resident now), `VmHWM` (peak).
    public static func kilobytes(_ field: String, of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
