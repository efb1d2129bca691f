/// What an install is doing, for progress bars and logs.
public enum InstallEvent: Sendable {
    /// A new step began (downloading a file, building an engine …).
    case step(String)
    /// Progress within the current step, 0…1, with a short detail such as "120 / 491 MB".
    case progress(Double, detail: String)
    /// A line of a build's output (the last one is shown under the bar).
    case output(String)
    /// Something was already in place and was left alone.
    case skipped(String)
    /// A part finished.
    case finished(String)
}

/// Receives install events.
public typealias InstallObserver = @Sendable (InstallEvent) -> Void
