import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SibylApp

/// A response of one wire value as Sibyl's JSON.
struct JSONBody<Value: Encodable & Sendable>: ResponseGenerator {
    let value: Value
    var status: HTTPResponse.Status = .ok

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(status: HTTPResponse.Status) throws -> Response {
        let data = try WireCoding.compactEncoder.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try response(status: status)
    }
}

/// A response of bytes with a content type, optionally as a download.
struct BytesBody: ResponseGenerator {
    let data: Data
    let contentType: String
    var filename: String?

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: contentType, .contentLength: String(data.count)]
        if let filename {
            let safe = filename.replacingOccurrences(of: "\"", with: "'")
            headers[.contentDisposition] = "attachment; filename=\"\(safe)\""
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// The body, up to `limit` bytes: a larger one is refused with 413 before more is read.
    func bodyData(limit: Int) async throws -> Data {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        do {
            let buffer = try await body.collect(upTo: limit)
            return Data(buffer: buffer)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        }
    }

    /// The JSON body decoded as `T`; an empty body decodes as `{}` when `T` allows it.
    func json<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        var data = try await bodyData(limit: limit)
        if data.isEmpty { data = Data("{}".utf8) }
        do {
            return try WireCoding.decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError(.badRequest, code: "invalid_json", "The request body is not what this route takes: \(APIError.describe(error))")
        }
    }

    /// A query parameter as an integer, within bounds; a malformed one is a 400.
    func integerQuery(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = uri.queryParameters.get(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest("'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }

    /// A query parameter, nil when absent or empty.
    func query(_ name: String) -> String? {
        guard let value = uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }
}

extension APIError {
    static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "too_large", "The request body is larger than the \(limit / (1 << 20) > 0 ? "\(limit / (1 << 20)) MB" : "\(limit) bytes") this route accepts.")
    }
}

extension RequestContext {
    /// A path parameter as a UUID; a malformed one is a 404 (no such resource can exist).
    func uuid(_ name: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw APIError.notFound("There is no \(name.replacingOccurrences(of: "Id", with: "")) '\(parameters.get(name) ?? "")'.")
        }
        return id
    }
}
