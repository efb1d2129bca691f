import Accounts
import Assistant
import Foundation
import Hummingbird
import SibylApp
import Storage

/// The operations log of the caller's data (the local user's on an open server): filtered by time,
/// level and operation; exported as JSON, JSON lines or CSV.
struct LogRoutes: RouteCollectionAdding {
    let state: ServerState

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("logs") { request, context in
            let query = try Self.query(request)
            let runtime = try await runtime(for: request, context: context)
            switch request.query("format") {
            case nil:
                return try await JSONBody(try runtime.admin.logs(query).map(Wire.LogEntry.init)).response(from: request, context: context)
            case let name?:
                guard let format = LogExportFormat(rawValue: name) else { throw APIError.badRequest("'format' is json, jsonl or csv.") }
                let data = try await runtime.admin.exportLogs(query, as: format)
                let type = switch format {
                case .json: "application/json"
                case .jsonl: "application/x-ndjson"
                case .csv: "text/csv; charset=utf-8"
                }
                return try BytesBody(data: data, contentType: type, filename: "sibyl-log.\(format.rawValue)").response(from: request, context: context)
            }
        }
    }

    /// The caller's own log, or with `account=NAME` (administrators; `local` for the local user's
    /// data, where the glasses' conversations go) another account's.
    private func runtime(for request: Request, context: SibylRequestContext) async throws -> SibylRuntime {
        guard let name = request.query("account") else { return try await state.runtime(for: context) }
        guard let accounts = state.accounts else {
            throw APIError(.notFound, code: "accounts_off", "This server has no accounts (serve.auth is none); leave out 'account'.")
        }
        guard context.credential?.account.isAdmin == true else {
            throw APIError(.forbidden, code: "admin_only", "Only an administrator may read another account's log.")
        }
        if name == "local" { return state.base.runtime }
        return try await state.workspace(forAccount: try accounts.account(named: name), in: accounts).runtime
    }

    static func query(_ request: Request) throws -> LogQuery {
        let level = try request.query("level").map { text -> LogEntry.Level in
            guard let level = LogEntry.Level(rawValue: text) else { throw APIError.badRequest("'level' is debug, info, warning or error.") }
            return level
        } ?? .debug
        func date(_ name: String) throws -> Date? {
            try request.query(name).map { text in
                guard let date = WireCoding.date(from: text) else { throw APIError.badRequest("'\(name)' is an ISO 8601 date such as 2026-11-23T10:00:00Z.") }
                return date
            }
        }
        return LogQuery(
            minimumLevel: level, since: try date("since"), until: try date("until"), operation: request.query("operation"),
            matching: request.query("search"), limit: try request.integerQuery("limit", default: 200, in: 1...100_000)
        )
    }
}
