import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What `word/styles.xml` says about paragraph styles: which are headings, titles and lists.
struct DOCXStyles {
    struct Style {
        var name = ""
        var basedOn: String?
        var outlineLevel: Int?
        var numbered = false
    }

    var styles: [String: Style] = [:]

    enum Role: Equatable {
        case title
        case heading(Int)
        case listItem
        case body
    }

    /// The role of a paragraph style, following `basedOn` (a custom style based on Heading 2 is a heading).
    func role(of styleID: String?) -> Role {
        var current = styleID
        var seen: Set<String> = []
        while let id = current, seen.insert(id).inserted {
            let style = styles[id]
            if let role = Self.roleFromName(id) ?? style.flatMap({ Self.roleFromName($0.name) }) { return role }
            if let level = style?.outlineLevel, level < 9 { return .heading(level + 1) }
            if style?.numbered == true { return .listItem }
            current = style?.basedOn
        }
        return .body
    }

    /// Built-in names and IDs: "heading 1" / "Heading1", "Title", "List Bullet", "ListParagraph" …
    static func roleFromName(_ name: String) -> Role? {
        let folded = name.lowercased().filter { $0 != " " }
        if folded == "title" { return .title }
        if folded.hasPrefix("heading"), let level = Int(folded.dropFirst(7)), (1...9).contains(level) { return .heading(level) }
        if folded.hasPrefix("list"), !folded.hasPrefix("listtable") { return .listItem }
        return nil
    }

    static func parse(_ data: Data) -> DOCXStyles {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = delegate
        // A damaged styles part only costs heading detection, so its errors are not fatal.
        _ = parser.parse()
        return DOCXStyles(styles: delegate.styles)
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var styles: [String: Style] = [:]
        private var id: String?
        private var style = Style()

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch element {
            case "style":
                id = attributes.localValue("styleId")
                style = Style()
                if attributes.localValue("type").map({ $0 != "paragraph" }) ?? false { id = nil }
            case "name": style.name = attributes.localValue("val") ?? ""
            case "basedOn": style.basedOn = attributes.localValue("val")
            case "outlineLvl": style.outlineLevel = attributes.localValue("val").flatMap(Int.init)
            case "numPr": style.numbered = true
            case "numId": if attributes.localValue("val") == "0" { style.numbered = false }
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "style", let id {
                styles[id] = style
                self.id = nil
            }
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// An attribute by its local name, whatever its namespace prefix (`w:val`, `val`).
    func localValue(_ name: String) -> String? {
        if let value = self[name] ?? self["w:" + name] { return value }
        return first { $0.key.hasSuffix(":" + name) }?.value
    }
}
