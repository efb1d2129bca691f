public import SibylCore

extension Wire {
    /// Any JSON value, for details whose shape varies (a log entry's): SibylCore's one JSON value type.
    public typealias JSONValue = SibylCore.JSONValue
}
