import Foundation

/// What the virtual glasses do, for a terminal view or a log.
public enum EmulatorEvent: Sendable {
    /// Something was drawn.
    case display(DisplayFrame)
    /// The REPL printed (serial TX), whether or not a phone listens.
    case serial(String)
    /// The app sent a data-channel message.
    case dataSent(Data)
    /// An LED changed.
    case led(String, on: Bool)
    /// The interpreter started again (power-on, soft reset, reset after an update).
    case restarted(String)
    /// A line the interpreter wrote to stderr.
    case log(String)
}
