import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import SibylServer

/// The browser UI's files: served from Sibyl itself with the security headers, revalidated by
/// hash, complete in every language; Debian's libraries only by name.
@Suite("The browser UI's files", .timeLimit(.minutes(10)))
struct WebRoutesTests {
    static let webFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SibylServer/Resources/Web")

    @Test func everyFileOfTheFolderIsCompiledIn() throws {
        let onDisk = Set(try FileManager.default.contentsOfDirectory(atPath: Self.webFolder.path))
        #expect(onDisk == Set(WebAssets.files.keys), "Package.swift's webFiles, WebAssets.files and Resources/Web must list the same files")
    }

    /// Every key the page uses is in every catalog, and the catalogs hold the same keys: no
    /// untranslated words in Korean or Indonesian.
    @Test func everyLanguageHasEveryWord() throws {
        func catalog(_ language: String) throws -> [String: String] {
            try #require(JSONSerialization.jsonObject(with: Data(WebAssets.files["i18n-\(language).json"]!)) as? [String: String])
        }
        let english = try catalog("en")
        // A counted phrase has a form per plural category of its language (`key.one`, `key.other`;
        // Korean and Indonesian have only `other`): the languages share the phrase, not the forms.
        let pluralForm = /^(.+)\.(zero|one|two|few|many|other)$/
        func phrase(_ key: String) -> String {
            key.wholeMatch(of: pluralForm).map { String($0.1) + ".other" } ?? key
        }
        for language in ["ko", "id"] {
            let other = try catalog(language)
            let phrases = { (catalog: [String: String]) in Set(catalog.keys.map(phrase)) }
            #expect(phrases(other) == phrases(english), "\(language): missing \(phrases(english).subtracting(phrases(other)).sorted()), extra \(phrases(other).subtracting(phrases(english)).sorted())")
            for (key, text) in other {
                #expect(!text.isEmpty, "\(language) \(key) is empty")
                #expect(other[phrase(key)] != nil, "\(language) \(key) has no 'other' form")
                // Placeholders must survive translation.
                let placeholders = { (text: String) in Set(text.matches(of: /\{(\w+)\}/).map { String($0.1) }) }
                #expect(placeholders(text) == placeholders(english[key] ?? english[phrase(key)] ?? ""), "\(language) \(key)")
            }
        }
        for key in english.keys { #expect(english[phrase(key)] != nil, "en \(key) has no 'other' form") }
        // Every catalog key the page's files name: in data-i18n attributes, and as quoted literals
        // of a catalog namespace (`'chat.send'`) in the scripts.
        let namespaces = Set(english.keys.compactMap { $0.split(separator: ".").first.map(String.init) })
        var used: Set<String> = []
        for (name, bytes) in WebAssets.files where name.hasSuffix(".js") || name.hasSuffix(".html") {
            let text = String(decoding: bytes, as: UTF8.self)
            used.formUnion(text.matches(of: /data-i18n(?:-label|-placeholder)?="([\w.]+)"/).map { String($0.1) })
            used.formUnion(text.matches(of: /'([a-zA-Z]+)\.([\w.]+)'/).filter { namespaces.contains(String($0.1)) }.map { "\($0.1).\($0.2)" })
        }
        #expect(used.count > 20)
        let missing = used.filter { english[$0] == nil && english[$0 + ".other"] == nil }
        #expect(missing.isEmpty, "used but not in the catalog: \(missing.sorted())")
    }

    @Test func thePageAndItsFilesAreServed() async throws {
        try await withServerFixture { fixture in
            for path in ["/", "/setup"] {
                try await fixture.client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
                    #expect(String(buffer: response.body).contains(#"<script type="module" src="/assets/app.js">"#))
                }
            }
            let tag = try await fixture.client.execute(uri: "/assets/app.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                return try #require(response.headers[.eTag])
            }
            try await fixture.client.execute(uri: "/assets/app.js", method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            for path in ["/assets/nothing.js", "/assets/..%2FPackage.swift", "/vendor/passwd", "/vendor/..%2F..%2Fetc%2Fpasswd", "/vendor/fonts/..%2Fkatex.min.js", "/setup/x"] {
                try await fixture.client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
        }
    }

    /// Debian's libraries, when installed, are served by their names only.
    @Test func librariesComeFromTheirFolderByNameOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-js-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("marked"), withIntermediateDirectories: true)
        try Data("window.marked = {};".utf8).write(to: root.appendingPathComponent("marked/marked.umd.min.js"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("marked/marked.min.js"), withDestinationURL: root.appendingPathComponent("marked/marked.umd.min.js"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("marked/other.js"))
        let router = Router(context: SibylRequestContext.self)
        WebRoutes(libraryRoot: root).add(to: router)
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/vendor/marked.min.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "window.marked = {};", "symlinks, as Debian installs them, are followed")
            }
            for path in ["/vendor/other.js", "/vendor/chart.min.js", "/vendor/fonts/other.js"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
        }
    }
}

extension WebRoutesTests {
    /// Browsers that take gzip get the page's text files gzipped (once, then from memory), with
    /// their own tag; others, and small files, get them as they are.
    @Test func textIsGzippedForBrowsersThatTakeIt() async throws {
        try await withServerFixture { fixture in
            let plain = try await fixture.client.execute(uri: "/assets/view-chat.js", method: .get) { response in
                #expect(response.headers[.contentEncoding] == nil)
                #expect(response.headers[.vary] == "Accept-Encoding")
                return response.body.readableBytes
            }
            for _ in 0..<2 {
                try await fixture.client.execute(uri: "/assets/view-chat.js", method: .get, headers: [.acceptEncoding: "br, gzip;q=0.8"]) { response in
                    #expect(response.headers[.contentEncoding] == "gzip")
                    #expect(response.headers[.eTag]?.hasSuffix("-gz\"") == true)
                    #expect(Array(response.body.readableBytesView.prefix(2)) == [0x1F, 0x8B])
                    #expect(response.body.readableBytes * 2 < plain, "\(response.body.readableBytes) of \(plain) bytes")
                }
            }
            try await fixture.client.execute(uri: "/assets/view-chat.js", method: .get, headers: [.acceptEncoding: "gzip;q=0"]) { response in
                #expect(response.headers[.contentEncoding] == nil)
            }
            try await fixture.client.execute(uri: "/assets/icon.svg", method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.headers[.contentEncoding] == nil, "a file under 1 KB is not worth it")
            }
        }
        #expect(WebRoutes.acceptsGzip("gzip, deflate"))
        #expect(WebRoutes.acceptsGzip("*"))
        #expect(!WebRoutes.acceptsGzip("br"))
        #expect(!WebRoutes.acceptsGzip("gzip; q=0"))
        #expect(!WebRoutes.acceptsGzip(nil))
    }
}
