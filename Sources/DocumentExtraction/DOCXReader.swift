import Foundation
import SibylCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Word documents (`.docx`): the main document part with its styles, and the title from the core properties.
struct DOCXReader {
    var limits: DOCXPackage.Limits

    func read(url: URL) throws -> ExtractedDocument {
        let package = try DOCXPackage(url: url, limits: limits)
        // Every part goes through `XMLPartText` before `XMLParser` sees it. An optional part it refuses
        // counts as missing, as other damage to such a part already does; for the main part it is an error.
        let mainPath = try package.read("_rels/.rels").flatMap { try? XMLPartText.prepared($0) }
            .flatMap { Relationships.target(ofType: "officeDocument", in: $0, base: "") } ?? "word/document.xml"
        guard let rawDocument = try package.read(mainPath) else {
            throw ExtractionError.corruptDOCX("it has no \(mainPath); is it a Word document?")
        }
        let document: Data
        do {
            document = try XMLPartText.prepared(rawDocument)
        } catch {
            throw ExtractionError.corruptDOCX("\(mainPath) \(error.reason)")
        }
        let directory = mainPath.split(separator: "/").dropLast().joined(separator: "/")
        let name = mainPath.split(separator: "/").last.map(String.init) ?? "document.xml"
        let relationshipsPath = (directory.isEmpty ? "" : directory + "/") + "_rels/" + name + ".rels"
        let stylesPath = try package.read(relationshipsPath).flatMap { try? XMLPartText.prepared($0) }
            .flatMap { Relationships.target(ofType: "styles", in: $0, base: directory) } ?? (directory.isEmpty ? "" : directory + "/") + "styles.xml"
        let styles = try package.read(stylesPath).flatMap { try? XMLPartText.prepared($0) }.map(DOCXStyles.parse) ?? DOCXStyles()
        let coreTitle = try package.read("docProps/core.xml").flatMap { try? XMLPartText.prepared($0) }.flatMap(CoreProperties.title)

        try Task.checkCancellation()
        let parser = DOCXDocumentParser(styles: styles)
        try parser.parse(document, path: mainPath)
        return ExtractedDocument(
            format: .docx,
            title: coreTitle ?? parser.titleParagraph ?? parser.collector.firstHeading,
            blocks: parser.collector.blocks
        )
    }

    /// `_rels/*.rels`: the target of the first relationship whose type ends in `/type`.
    enum Relationships {
        static func target(ofType type: String, in data: Data, base: String) -> String? {
            let delegate = Delegate(type: type)
            let parser = XMLParser(data: data)
            parser.shouldProcessNamespaces = true
            parser.delegate = delegate
            _ = parser.parse()
            guard let target = delegate.target else { return nil }
            if target.hasPrefix("/") { return String(target.dropFirst()) }
            return base.isEmpty ? target : base + "/" + target
        }

        private final class Delegate: NSObject, XMLParserDelegate {
            let type: String
            var target: String?
            init(type: String) { self.type = type }

            func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                guard target == nil, element == "Relationship", attributes["Type"]?.hasSuffix("/" + type) == true else { return }
                target = attributes["Target"]
            }
        }
    }

    /// `docProps/core.xml`: the `dc:title`.
    enum CoreProperties {
        static func title(in data: Data) -> String? {
            let delegate = Delegate()
            let parser = XMLParser(data: data)
            parser.shouldProcessNamespaces = true
            parser.delegate = delegate
            _ = parser.parse()
            let title = delegate.title.trimmingWhitespace()
            return title.isEmpty ? nil : title
        }

        private final class Delegate: NSObject, XMLParserDelegate {
            var title = ""
            private var inTitle = false

            func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                inTitle = element == "title"
            }

            func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
                inTitle = false
            }

            func parser(_ parser: XMLParser, foundCharacters string: String) {
                if inTitle { title += string }
            }
        }
    }
}
