import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Encoded responses of a read route, kept while the data behind them has not changed.
///
/// A browser polls the conversation list; most polls find nothing new. An entry is current while
/// the version it was made under (counters that grow with every change this process makes) is
/// unchanged, and for at most `maximumAge`, so that a change made by another process on the same
/// data directory (a `sibyl` command in a terminal) shows within that time. The version is read
/// before the data, so an entry can only be older than its version claims, never newer: a change
/// that lands in between makes the next request build it again.
///
/// Each entry has a strong `ETag` over its bytes; a request whose `If-None-Match` names it gets
/// `304 Not Modified` and no body.
final class ListingCache: Sendable {
    struct Version: Equatable, Sendable {
        var store: Int
        var activity: Int
    }

    private struct Entry {
        var version: Version
        var made: ContinuousClock.Instant
        var body: ByteBuffer
        var etag: String
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let maximumAge: Duration
    private let capacity: Int

    init(maximumAge: Duration = .seconds(1), capacity: Int = 64) {
        self.maximumAge = maximumAge
        self.capacity = capacity
    }

    /// The response for `key` (the route's query): the cached bytes when current, else what
    /// `make` encodes now, which is kept for the next request.
    /// The page for `key`, made by `make` unless a page of the same version is cached; a nil
    /// version (data other processes change too) is never cached.
    func response(for request: Request, key: String, version: Version?, make: () async throws -> Data) async throws -> Response {
        let now = ContinuousClock.now
        let cached = entries.withLock { entries -> Entry? in
            guard let version, let entry = entries[key], entry.version == version, now - entry.made < maximumAge else { return nil }
            return entry
        }
        if let cached { return Self.response(cached, to: request) }
        let data = try await make()
        guard let version else {
            return Self.response(Entry(version: Version(store: 0, activity: 0), made: now, body: ByteBuffer(bytes: data), etag: Self.etag(of: data)), to: request)
        }
        let entry = Entry(version: version, made: now, body: ByteBuffer(bytes: data), etag: Self.etag(of: data))
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
        return Self.response(entry, to: request)
    }

    private static func response(_ entry: Entry, to request: Request) -> Response {
        if let wanted = request.headers[.ifNoneMatch], wanted.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == entry.etag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return Response(status: .notModified, headers: [.eTag: entry.etag, .cacheControl: "no-cache"])
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8", .contentLength: String(entry.body.readableBytes),
                .eTag: entry.etag, .cacheControl: "no-cache",
            ],
            body: ResponseBody(byteBuffer: entry.body)
        )
    }

    /// A strong validator over the bytes: 64-bit FNV-1a, quoted.
    static func etag(of data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "\"\(String(hash, radix: 16))-\(data.count)\""
    }
}
