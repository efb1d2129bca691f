import Foundation

/// One `display.show()` (or `display.clear()`) on the emulated glasses.
public struct DisplayFrame: Sendable, Hashable {
    /// One object drawn: `Text`, `Line`, `Rectangle`, … with the fields the device app gave it.
    ///
    /// Text: `text` with its top-left corner at `x`, `y` (after justification). Lines and
    /// rectangles: from `x`, `y` to `x2`, `y2`. Polylines and polygons: `points`.
    public struct Object: Sendable, Hashable {
        public var type: String
        public var text: String?
        public var x: Int?
        public var y: Int?
        public var color: Int?
        public var justify: Int?
        public var x2: Int?
        public var y2: Int?
        /// A line's width in pixels.
        public var thickness: Int?
        /// A polyline's or polygon's corners, as (x, y).
        public var points: [[Int]]?

        public init(type: String, text: String? = nil, x: Int? = nil, y: Int? = nil, color: Int? = nil, justify: Int? = nil,
                    x2: Int? = nil, y2: Int? = nil, thickness: Int? = nil, points: [[Int]]? = nil) {
            self.type = type
            self.text = text
            self.x = x
            self.y = y
            self.color = color
            self.justify = justify
            self.x2 = x2
            self.y2 = y2
            self.thickness = thickness
            self.points = points
        }

        /// The firmware's red, used for errors.
        public static let red = 0xAD2323
        public static let white = 0xFFFFFF
        public static let yellow = 0xFFEE33
    }

    /// When it was drawn, since the emulator powered on.
    public var time: Duration
    public var objects: [Object]

    /// The text objects top to bottom, left to right.
    public var texts: [Object] {
        objects.filter { $0.type == "Text" && $0.text != nil }.sorted { ($0.y ?? 0, $0.x ?? 0) < ($1.y ?? 0, $1.x ?? 0) }
    }

    /// The visible text, one line per text object, top to bottom.
    public var lines: [String] { texts.compactMap(\.text) }

    /// Decodes the stubs' JSON list of drawn objects.
    init(time: Duration, json: [UInt8]) {
        self.time = time
        let list = (try? JSONSerialization.jsonObject(with: Data(json))) as? [[String: Any]] ?? []
        func number(_ item: [String: Any], _ key: String) -> Int? { (item[key] as? NSNumber)?.intValue }
        objects = list.map { item in
            Object(
                type: item["type"] as? String ?? "?",
                text: item["text"] as? String,
                x: number(item, "x") ?? number(item, "x1"),
                y: number(item, "y") ?? number(item, "y1"),
                color: number(item, "color"),
                justify: number(item, "justify"),
                x2: number(item, "x2"),
                y2: number(item, "y2"),
                thickness: number(item, "thickness"),
                points: (item["points"] as? [[NSNumber]])?.map { $0.map(\.intValue) }
            )
        }
    }

    public init(time: Duration, objects: [Object]) {
        self.time = time
        self.objects = objects
    }

    /// The screen as text, for a terminal: 7 answer lines and the status line.
    public func rendered(width: Int = 26) -> String {
        let border = "+" + String(repeating: "-", count: width + 2) + "+"
        var rows = [border]
        for object in texts {
            let text = object.text ?? ""
            let marker = object.color == Self.Object.red ? "!" : (object.color == Self.Object.yellow ? ">" : " ")
            rows.append("|\(marker)" + text.padding(toLength: width, withPad: " ", startingAt: 0) + " |")
        }
        rows.append(border)
        return rows.joined(separator: "\n")
    }
}
