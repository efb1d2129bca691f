import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The browser UI: one page (`/`, and `/setup` for the first administrator's one-time link), its
/// scripts, styles and message catalogs compiled into Sibyl (`/assets/NAME`), and the JavaScript
/// libraries Debian installs (`/vendor/NAME`, from `/usr/share/javascript`; the page falls back
/// to plain text without them). Nothing here needs signing in: the page asks the API who is
/// calling, and the API checks.
struct WebRoutes: Sendable {
    /// Where Debian's `libjs-*` packages put their files.
    let libraryRoot: URL
    /// Each file gzipped once, by its content's tag.
    private static let gzipped = Mutex<[String: [UInt8]]>([:])

    init(libraryRoot: URL = URL(fileURLWithPath: "/usr/share/javascript", isDirectory: true)) {
        self.libraryRoot = libraryRoot
    }

    /// The library files the page may load, by the name it asks for, and where each is below `libraryRoot`.
    static let libraries: [String: String] = [
        "marked.min.js": "marked/marked.min.js",
        "highlight.min.js": "highlight.js/highlight.min.js",
        "highlight-light.css": "highlight.js/styles/a11y-light.css",
        "highlight-dark.css": "highlight.js/styles/a11y-dark.css",
        "katex.min.js": "katex/katex.min.js",
        "katex.min.css": "katex/katex.min.css",
        "katex-auto-render.js": "katex/contrib/auto-render.js",
        "chart.min.js": "chart.js/chart.min.js",
        // node-qrcode-generator installs its browser script under /usr/share/nodejs and links it here.
        "qrcode.js": "qrcode-generator/qrcode.js",
    ]

    /// Whether a path is the UI's (not the API's, which openapi.yaml describes).
    static func isPage(_ path: some StringProtocol) -> Bool {
        path == "/" || path == "/setup" || path.hasPrefix("/setup/") || path.hasPrefix("/assets/") || path.hasPrefix("/vendor/")
            || path == "/sw.js" || path == "/manifest.webmanifest"
    }

    func add(to router: Router<SibylRequestContext>) {
        for path in ["/", "/setup"] {
            router.get(RouterPath(path)) { request, _ in try Self.asset("index.html", request: request) }
        }
        // The installable app: its manifest, and its service worker, which must be served from the
        // root to look after every page of the app.
        router.get("/manifest.webmanifest") { request, _ in try Self.asset("manifest.webmanifest", request: request) }
        router.get("/sw.js") { request, _ in try Self.asset("sw.js", request: request) }
        router.get("/assets/:name") { request, context in
            try Self.asset(try context.parameters.require("name"), request: request)
        }
        router.get("/vendor/:name") { request, context in
            let name = try context.parameters.require("name")
            guard let relative = Self.libraries[name] else { throw HTTPError(.notFound) }
            let file = libraryRoot.appendingPathComponent(relative).resolvingSymlinksInPath()
            guard let data = FileManager.default.contents(atPath: file.path) else { throw HTTPError(.notFound) }
            return Self.response(Array(data), name: name, request: request)
        }
        // KaTeX's fonts, which its style sheet asks for beside itself.
        router.get("/vendor/fonts/:name") { request, context in
            let name = try context.parameters.require("name")
            guard name.range(of: #"^KaTeX_[A-Za-z0-9_-]+\.(woff2|woff|ttf)$"#, options: .regularExpression) != nil else { throw HTTPError(.notFound) }
            let file = libraryRoot.appendingPathComponent("katex/fonts/\(name)").resolvingSymlinksInPath()
            guard let data = FileManager.default.contents(atPath: file.path) else { throw HTTPError(.notFound) }
            return Self.response(Array(data), name: name, request: request)
        }
    }

    /// A compiled-in file of the page, or 404.
    static func asset(_ name: String, request: Request) throws -> Response {
        guard let bytes = WebAssets.files[name] else { throw HTTPError(.notFound) }
        return response(bytes, name: name, request: request)
    }

    /// The file, revalidated by its content's hash on every load (so a new Sibyl is never mixed with
    /// an old cached script), or 304 when the browser has it; gzipped for browsers that take it
    /// (the page, its scripts and Debian's libraries are text that shrinks to a fifth or less).
    static func response(_ bytes: [UInt8], name: String, request: Request) -> Response {
        let hash = SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined()
        let type = contentType(name)
        let compressible = bytes.count > 1024 && (type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("application/manifest") || type.hasPrefix("image/svg"))
        let gzip = compressible && acceptsGzip(request.headers[.acceptEncoding])
        let tag = "\"\(hash)\(gzip ? "-gz" : "")\""
        var headers: HTTPFields = [.eTag: tag, .cacheControl: "no-cache", .contentType: type]
        if compressible { headers[.vary] = "Accept-Encoding" }
        if request.headers[.ifNoneMatch] == tag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        var body = bytes
        if gzip, let packed = gzipped(bytes, hash: hash) {
            body = packed
            headers[.contentEncoding] = "gzip"
        }
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Whether an Accept-Encoding header takes gzip (and does not refuse it with q=0).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = pieces.first, coding == "gzip" || coding == "*" else { return false }
            return !pieces.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" || $0 == "q=0.0" || $0 == "q=0.00" || $0 == "q=0.000" }
        }
    }

    private static func gzipped(_ bytes: [UInt8], hash: String) -> [UInt8]? {
        if let known = gzipped.withLock({ $0[hash] }) { return known }
        var input = ByteBuffer(bytes: bytes)
        guard var output = try? input.compress(with: .gzip(configuration: .init(compressionLevel: 9))),
              let packed = output.readBytes(length: output.readableBytes) else { return nil }
        gzipped.withLock { $0[hash] = packed }
        return packed
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json; charset=utf-8"
        case "webmanifest": "application/manifest+json; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "woff2": "font/woff2"
        case "woff": "font/woff"
        case "ttf": "font/ttf"
        default: "application/octet-stream"
        }
    }
}
