import Foundation

/// Copies accounts with their password hashes and API tokens from one back end to another (a data
/// directory's `accounts.sqlite` into the shared PostgreSQL, or back), for `sibyl db migrate --to`.
///
/// Ids are kept, so each account finds its conversations and documents where they were copied;
/// passwords and tokens go on working, since only their hashes move. Sessions are not copied:
/// browsers sign in again. Running the copy again skips what is there; an account whose name is
/// taken in the destination by another account is left out and reported.
public enum AccountCopy {
    public struct Report: Sendable, Hashable {
        public var copied = 0
        public var alreadyThere = 0
        public var tokens = 0
        /// Names held in the destination by a different account (those accounts were not copied).
        public var nameTaken: [String] = []
    }

    public static func copy(from source: Accounts, to destination: Accounts) async throws -> Report {
        var report = Report()
        let (from, to) = (source.store, destination.store)
        for account in try await from.accounts() {
            if try await to.account(id: account.id) != nil {
                report.alreadyThere += 1
            } else if try await to.account(named: account.name) != nil {
                report.nameTaken.append(account.name)
                continue
            } else {
                guard let (_, passwordHash) = try await from.account(named: account.name) else { continue }
                try await to.insert(account, passwordHash: passwordHash)
                report.copied += 1
            }
            let present = Set(try await to.tokens(accountID: account.id).map(\.id))
            let hashes = try await from.tokenSecretHashes(accountID: account.id)
            for token in try await from.tokens(accountID: account.id) where !present.contains(token.id) {
                guard let hash = hashes[token.id] else { continue }
                try await to.insertToken(token, secretHash: hash)
                report.tokens += 1
            }
        }
        return report
    }
}
