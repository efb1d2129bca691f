/// One event of a `text/event-stream`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field; nil for the default `message` type.
    public var event: String?
    /// The `data:` lines joined with newlines.
    public var data: String
    public var id: String?

    public init(event: String? = nil, data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// An incremental parser for server-sent events, fed with bytes as they arrive.
///
/// Follows the HTML living standard's rules: lines end in CRLF, LF or CR (also when a CRLF is
/// split across two chunks), lines starting with `:` are comments, several `data:` lines join
/// with `\n`, one space after the colon is dropped, and a blank line dispatches the event.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var eventType: String?
    private var dataLines: [String] = []
    private var hasData = false
    private var lastID: String?

    public init() {}

    /// Feeds bytes and returns the events they complete.
    public mutating func consume(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if lastWasCR {
                    lastWasCR = false
                    continue
                }
                endLine(into: &events)
            case UInt8(ascii: "\r"):
                lastWasCR = true
                endLine(into: &events)
            default:
                lastWasCR = false
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the stream; returns an event left without its closing blank line.
    ///
    /// The standard discards such an event, but some servers close the connection right after
    /// their last `data:` line, and dropping a final `[DONE]` or usage chunk would lose data.
    public mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if !line.isEmpty { endLine(into: &events) }
        if hasData { dispatch(into: &events) }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            dispatch(into: &events)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data":
            dataLines.append(String(value))
            hasData = true
        case "event":
            eventType = String(value)
        case "id":
            if !value.contains("\0") { lastID = String(value) }
        default:
            break  // `retry` and unknown fields do not matter to a one-shot request.
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            dataLines.removeAll()
            hasData = false
            eventType = nil
        }
        guard hasData else { return }
        events.append(ServerSentEvent(event: eventType, data: dataLines.joined(separator: "\n"), id: lastID))
    }
}
