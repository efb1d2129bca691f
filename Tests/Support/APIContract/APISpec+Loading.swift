import Foundation
import OpenAPIKit
import Yams

/// Loading: YAML text → Yams node → normalised node → OpenAPIKit types.
extension APISpec {
    /// Reads and decodes the spec at `url`.
    init(contentsOf url: URL) throws(APISpecError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw APISpecError("cannot read \(url.path): \(error)")
        }
        try self.init(yaml: text)
    }

    /// Decodes spec text.
    ///
    /// Decodes the whole `OpenAPI.Document` first, since that also proves the spec well formed.
    /// If OpenAPIKit rejects anything anywhere in it (a future spec revision may bring a new
    /// construct to any of its ~180 operations or ~1,400 schemas), it falls back to decoding
    /// only `paths` and `components`, entry by entry, so one odd webhook does not switch off
    /// every contract test; the entries it had to skip are listed in `notes`.
    init(yaml: String) throws(APISpecError) {
        let clock = ContinuousClock()
        let start = clock.now
        let root: Node
        do {
            guard let composed = try Yams.compose(yaml: yaml) else { throw APISpecError("the spec is empty") }
            root = composed
        } catch let error as APISpecError {
            throw error
        } catch {
            throw APISpecError("the spec is not valid YAML: \(error)")
        }
        let (node, report) = OpenAPIYAMLNormalizer.normalize(root)
        var notes = Self.notes(describing: report)

        // Vendor extensions (`x-oaiMeta`, `x-stainless-const`, ...) carry nothing validation
        // uses, and collecting them re-decodes every schema subtree at every level: with them
        // decoding takes ~7x longer (25 s instead of 3.6 s in a debug build).
        let decoder = YAMLDecoder()
        let userInfo: [CodingUserInfoKey: Any] = [VendorExtensionsConfiguration.enabledKey: false]
        do {
            let document = try decoder.decode(OpenAPI.Document.self, from: node, userInfo: userInfo)
            self.init(document: document, notes: notes, loadDuration: clock.now - start)
        } catch {
            notes.append("OpenAPIKit rejected the whole document (\(Self.abbreviated(error))); decoded paths and components entry by entry instead")
            let subset: LenientSpecSubset
            do {
                subset = try decoder.decode(LenientSpecSubset.self, from: node, userInfo: userInfo)
            } catch {
                throw APISpecError("cannot decode the spec's paths and components: \(Self.abbreviated(error))")
            }
            notes += subset.skipped
            self.init(
                operations: subset.operations,
                responses: subset.responses,
                components: subset.components,
                document: nil,
                serverBasePaths: Self.basePaths(ofServerURLs: subset.serverURLs),
                notes: notes,
                loadDuration: clock.now - start
            )
        }
    }

    private init(document: OpenAPI.Document, notes: [String], loadDuration: Duration) {
        var operations: [OperationKey: Either<OpenAPI.Reference<OpenAPI.Request>, OpenAPI.Request>?] = [:]
        var responses: [OperationKey: OpenAPI.Response.Map] = [:]
        var notes = notes
        for (path, declared) in document.paths {
            guard let item = document.components[declared] else {
                notes.append("skipped path \(path.rawValue): its $ref does not resolve")
                continue
            }
            for endpoint in item.endpoints {
                let key = OperationKey(path: path.rawValue, method: endpoint.method.rawValue)
                operations[key] = .some(endpoint.operation.requestBody)
                responses[key] = endpoint.operation.responses
            }
        }
        self.init(
            operations: operations,
            responses: responses,
            components: document.components,
            document: document,
            serverBasePaths: Self.basePaths(ofServerURLs: document.servers.map(\.urlTemplate.absoluteString)),
            notes: notes,
            loadDuration: loadDuration
        )
    }

    private static func notes(describing report: OpenAPIYAMLNormalizer.Report) -> [String] {
        var notes: [String] = []
        if report.retaggedKeys > 0 {
            notes.append("retagged \(report.retaggedKeys) quoted numeric mapping keys as plain keys (Yams could not look them up)")
        }
        if report.booleanExclusiveBounds > 0 {
            notes.append("rewrote \(report.booleanExclusiveBounds) OpenAPI 3.0 boolean exclusiveMinimum/exclusiveMaximum flags in 3.1 form")
        }
        if report.clampedBounds > 0 {
            notes.append("clamped \(report.clampedBounds) numeric bounds beyond 64 bits to Int.min/Int.max")
        }
        return notes
    }

    /// `/v1` for `https://api.openai.com/v1`; server URLs without a path contribute nothing.
    private static func basePaths(ofServerURLs urls: [String]) -> [String] {
        urls.compactMap { url in
            guard let path = URLComponents(string: url)?.path else { return nil }
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    /// Decoding errors quote coding paths and can run to pages; the first lines say enough.
    static func abbreviated(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 400 ? text.prefix(400) + "..." : text
    }
}

/// Why the spec could not be loaded although a file was found.
struct APISpecError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, and where.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
