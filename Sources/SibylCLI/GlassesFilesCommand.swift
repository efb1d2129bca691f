import ArgumentParser
import Foundation

extension GlassesCommand {
    /// `sibyl glasses files`.
    struct Files: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, copy and remove the files on the glasses.",
            subcommands: [List.self, Put.self, Get.self, Remove.self]
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the files on the glasses, with their sizes.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var target: Target
            @Argument(help: "A directory on the glasses (the top one by default).") var directory = ""

            func run() async throws {
                try await global.withRuntime { runtime in
                    let glasses = try await target.open(runtime)
                    let files: [GlassesFile]
                    do { files = try await glasses.session.listFiles(in: directory) } catch {
                        await glasses.close()
                        throw error
                    }
                    await glasses.close()
                    if files.isEmpty { Terminal.print(Terminal.dim("no files")) }
                    for file in files {
                        let size = file.isDirectory ? "dir" : "\(file.size)"
                        Terminal.print(size.padding(toLength: max(8, size.count), withPad: " ", startingAt: 0) + "  " + file.name + (file.isDirectory ? "/" : ""))
                    }
                }
            }
        }

        struct Put: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Copy files from here to the glasses.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var target: Target
            @Argument(help: "Files to copy; each keeps its name.") var files: [String]
            @Option(name: .customLong("as"), help: "The name on the glasses (for one file).") var name: String?

            func validate() throws {
                if name != nil && files.count != 1 { throw ValidationError("--as names one file; give a single FILE with it.") }
            }

            func run() async throws {
                try await global.withRuntime { runtime in
                    let contents = try files.map { path -> (String, Data) in
                        guard let data = FileManager.default.contents(atPath: path) else {
                            throw CLIError("Cannot read \(path).", hint: "Check the path; a directory is not copied, its files are.")
                        }
                        return (name ?? URL(fileURLWithPath: path).lastPathComponent, data)
                    }
                    let glasses = try await target.open(runtime)
                    do {
                        for (file, data) in contents {
                            try await glasses.session.put(data, as: file)
                            Terminal.print("\(file)  \(data.count) bytes → \(glasses.session.name)")
                        }
                    } catch {
                        await glasses.close()
                        throw error
                    }
                    await glasses.close()
                }
            }
        }

        struct Get: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Copy a file from the glasses to here.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var target: Target
            @Argument(help: "The file on the glasses.") var file: String
            @Argument(help: "Where to save it (its own name in this directory by default; - for standard output).") var destination: String?

            func run() async throws {
                try await global.withRuntime { runtime in
                    let glasses = try await target.open(runtime)
                    let data: Data
                    do { data = try await glasses.session.get(file) } catch {
                        await glasses.close()
                        throw error
                    }
                    await glasses.close()
                    if destination == "-" {
                        Terminal.write(data)
                        return
                    }
                    let path = destination ?? URL(fileURLWithPath: file).lastPathComponent
                    do { try data.write(to: URL(fileURLWithPath: path)) } catch {
                        throw CLIError("Cannot write \(path): \(error.localizedDescription)")
                    }
                    Terminal.print("\(file)  \(data.count) bytes → \(path)")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete files on the glasses.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var target: Target
            @Argument(help: "Files to delete.") var files: [String]

            func run() async throws {
                try await global.withRuntime { runtime in
                    let glasses = try await target.open(runtime)
                    do {
                        for file in files {
                            try await glasses.session.remove(file)
                            Terminal.print("removed \(file)")
                        }
                    } catch {
                        await glasses.close()
                        throw error
                    }
                    await glasses.close()
                }
            }
        }
    }
}
