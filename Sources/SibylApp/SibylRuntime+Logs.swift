import Assistant
import Foundation
import SibylCore
public import Storage

extension SibylRuntime {
    /// Writes to the operations log; secrets are redacted, and a failure to log never fails the operation.
    public func log(_ level: LogEntry.Level, _ category: LogCategory, _ message: String) async {
        try? await store.log(level, category.rawValue, message, detailsJSON: nil)
    }

    /// Writes to the operations log with structured details.
    public func log(_ level: LogEntry.Level, _ category: LogCategory, _ message: String, details: some Encodable) async {
        try? await store.log(level, category.rawValue, message, detailsJSON: WireCoding.jsonText(details))
    }
}
