import Accounts
import ArgumentParser
import Assistant
import Foundation
import Logging
import SibylApp
import SibylConfig

/// `sibyl users`: the accounts of a shared `sibyl serve`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the accounts of a shared `sibyl serve`: add, list, remove, reset passwords, API tokens.",
        discussion: """
        Accounts live in SIBYL_HOME/accounts.sqlite (owner-only), or in the database SIBYL_DATABASE_URL names, \
        which every sibyl serve on it shares. Passwords are read from the terminal without \
        echo, or as one line from standard input with --password-stdin; they are stored as bcrypt hashes (cost 12). \
        The first account must be an administrator: sibyl users add NAME --admin
        """,
        subcommands: [List.self, Add.self, Remove.self, ResetPassword.self, Role.self, Token.self, Tokens.self, Revoke.self],
        defaultSubcommand: List.self
    )

    /// The accounts: those of the shared database when SIBYL_DATABASE_URL names one, else SIBYL_HOME's.
    static func open() throws -> Accounts {
        let paths = SibylPaths()
        if let shared = try SharedDatabase.named(by: ProcessInfo.processInfo.environment, paths: paths, logger: Logger(label: "sibyl")) { return shared.accounts() }
        try paths.createHome()
        return try Accounts(path: paths.accountsDatabase.path)
    }

    /// A new password: typed twice without echo, or one line from standard input.
    static func readNewPassword(for name: String, fromStandardInput: Bool) throws -> String {
        if fromStandardInput || !Terminal.stdinIsTerminal {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw CLIError("No password on standard input.") }
            return line
        }
        guard let first = Terminal.readSecretLine(prompt: "New password for \(name): "), !first.isEmpty else {
            throw CLIError("No password was typed; nothing was changed.")
        }
        guard Terminal.readSecretLine(prompt: "The same password again: ") == first else {
            throw CLIError("The two passwords differ; nothing was changed.")
        }
        return first
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts.")
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let accounts = try await Users.open().list()
                if json {
                    Terminal.print(Format.json(accounts))
                } else if accounts.isEmpty {
                    Terminal.print("No accounts yet. The first one: sibyl users add NAME --admin")
                } else {
                    Terminal.print(Format.table(["NAME", "ROLE", "CREATED"], accounts.map { [$0.name, $0.role.rawValue, Format.date($0.createdAt)] }))
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account.", discussion: "Example: sibyl users add ada --admin")
        @Argument(help: "The sign-in name: letters, digits, dots, dashes, underscores.") var name: String
        @Flag(help: "An administrator: manages accounts, shared providers and models, and reads every log.") var admin = false
        @Flag(help: "Read the password as one line from standard input.") var passwordStdin = false

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                if try await accounts.isEmpty, !admin {
                    throw CLIError("The first account must be an administrator.", hint: "sibyl users add \(name) --admin")
                }
                let password = try Users.readNewPassword(for: name, fromStandardInput: passwordStdin)
                let account = try await accounts.add(name: name, password: password, role: admin ? .admin : .user)
                Terminal.print("Added \(account.name) (\(account.role.rawValue)).")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account, its sessions, its API tokens and its data.")
        @Argument var name: String
        @Flag(help: "Keep the account's data directory (SIBYL_HOME/users/ID).") var keepData = false

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                // Its documents in the shared database go first: when the database does not
                // answer, the account stays as it was, and removing it can be tried again.
                if !keepData, let shared = try SharedDatabase.named(by: ProcessInfo.processInfo.environment, paths: SibylPaths(), logger: Logger(label: "sibyl")) {
                    let id = try await accounts.account(named: name).id
                    do {
                        try await shared.removeData(ofAccount: id)
                        await shared.close()
                    } catch {
                        await shared.close()
                        throw error
                    }
                }
                let account = try await accounts.remove(name: name)
                let data = SibylPaths().accountHome(id: account.id)
                guard !keepData else { return Terminal.print("Removed \(account.name).") }
                if FileManager.default.fileExists(atPath: data.path) { try FileManager.default.removeItem(at: data) }
                Terminal.print("Removed \(account.name) and its data.")
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Set a new password; the account is signed out everywhere."
        )
        @Argument var name: String
        @Flag(help: "Read the password as one line from standard input.") var passwordStdin = false

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                let account = try await accounts.account(named: name)
                let password = try Users.readNewPassword(for: account.name, fromStandardInput: passwordStdin)
                try await accounts.resetPassword(name: account.name, to: password)
                Terminal.print("New password set for \(account.name); its browser sessions have ended.")
            }
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an account an administrator or a user.")
        @Argument var name: String
        @Argument(help: "admin or user.") var role: String

        func run() async throws {
            try await reportingErrors {
                guard let chosen = Account.Role(rawValue: role) else { throw ValidationError("The role is admin or user.") }
                try await Users.open().setRole(chosen, name: name)
                Terminal.print("\(name) is now \(chosen == .admin ? "an administrator" : "a user").")
            }
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an API token for scripts and OpenAI clients; it is shown once.",
            discussion: "Use it as `Authorization: Bearer TOKEN`, or as the API key of an OpenAI client with base URL http://HOST:PORT/v1."
        )
        @Argument var name: String
        @Option(help: "What the token is for.") var label = "token"
        @Flag(help: "The token may read and ask, but not change or delete anything.") var readOnly = false

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                let issued = try await accounts.issueToken(accountID: try accounts.account(named: name).id, label: label, readOnly: readOnly)
                Terminal.error("API token \(issued.token.id) for \(name)\(readOnly ? " (read-only)" : ""). It is shown only now:")
                Terminal.print(issued.secret)
            }
        }
    }

    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an account's API tokens (never their secrets).")
        @Argument var name: String

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                let tokens = try await accounts.tokens(accountID: try accounts.account(named: name).id)
                Terminal.print(Format.table(["ID", "LABEL", "STARTS", "ACCESS", "CREATED", "LAST USED"], tokens.map {
                    [$0.id, $0.label, $0.prefix + "…", $0.readOnly ? "read-only" : "full", Format.date($0.createdAt), $0.lastUsedAt.map(Format.date) ?? "never"]
                }))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one of an account's API tokens.")
        @Argument var name: String
        @Argument(help: "The token's id (sibyl users tokens NAME).") var id: String

        func run() async throws {
            try await reportingErrors {
                let accounts = try Users.open()
                try await accounts.revokeToken(id: id, accountID: try accounts.account(named: name).id)
                Terminal.print("Revoked \(id).")
            }
        }
    }
}
