import Foundation
import Testing
@testable import VeinCLI

/// man/ and completions/ are produced from the command table and committed; these tests fail when the
/// committed files and the table drift apart (fix: `make docs`).
@Suite struct GeneratedDocsTests {
    @Test func committedFilesMatchTheCommandTable() throws {
        for (path, expected) in GeneratedDocs.files() {
            let url = VeinRunner.packageRoot.appendingPathComponent(path)
            let actual = try? String(contentsOf: url, encoding: .utf8)
            #expect(actual == expected, "\(path) is out of date with the command table; run 'make docs'")
        }
    }

    @Test func noStaleGeneratedFiles() throws {
        let generated = Set(GeneratedDocs.files().map(\.0))
        for folder in ["man", "completions"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: VeinRunner.packageRoot.appendingPathComponent(folder).path)
            for name in names {
                #expect(generated.contains("\(folder)/\(name)"), "\(folder)/\(name) is not produced by the command table")
            }
        }
    }

    /// Every command and option of the table appears in its help, its man page and every completion script.
    @Test func helpManAndCompletionsNameEveryOption() throws {
        let scripts = CompletionRenderer.Shell.allCases.map { CompletionRenderer.script(for: $0, root: CommandTable.root) }
        for sub in CommandTable.root.subcommands {
            let help = try VeinCommandLine.help(for: [sub.name])
            let man = ManRenderer.page(sub, path: [sub.name], version: "x", date: "d")
            for script in scripts { #expect(script.contains(sub.name), "completion lacks command \(sub.name)") }
            for option in sub.allOptions {
                #expect(help.contains("--\(option.long)"), "help of \(sub.name) lacks --\(option.long)")
                #expect(man.contains("\\-\\-\(option.long.replacingOccurrences(of: "-", with: "\\-"))"), "man page of \(sub.name) lacks --\(option.long)")
                #expect(scripts[0].contains("--\(option.long)"), "bash completion lacks --\(option.long)")
                #expect(scripts[1].contains("--\(option.long)"), "zsh completion lacks --\(option.long)")
                #expect(scripts[2].contains("-l \(option.long)"), "fish completion lacks --\(option.long)")
            }
        }
    }

    @Test(arguments: [("bash", "completions/vein.bash"), ("zsh", "completions/_vein"), ("fish", "completions/vein.fish")])
    func completionScriptsAreValidSyntax(shell: String, file: String) throws {
        let runner = try VeinRunner()
        defer { runner.cleanUp() }
        let path = VeinRunner.packageRoot.appendingPathComponent(file).path
        guard FileManager.default.fileExists(atPath: "/usr/bin/\(shell)") else {
            Issue.record("\(shell) is not installed (scripts/setup installs it)")
            return
        }
        let result = try runner.run("/usr/bin/\(shell)", ["-n", path])
        #expect(result.status == 0, "\(file): \(result.stderr)")
    }

    /// The bash script completes as a user sees it: commands, options, and option values.
    @Test func bashCompletionCompletes() throws {
        let runner = try VeinRunner()
        defer { runner.cleanUp() }
        let script = VeinRunner.packageRoot.appendingPathComponent("completions/vein.bash").path
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let result = try runner.run("/bin/bash", ["-c", """
                source '\(script)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                _vein
                printf '%s\\n' "${COMPREPLY[@]}"
                """])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["vein", "cr"]) == ["create"])
        #expect(try Set(complete(["vein", "create", "--s"])) == ["--schema"])
        #expect(try complete(["vein", "completions", "z"]) == ["zsh"])
        #expect(try Set(complete(["vein", "info", "--"])) == ["--key-file", "--key-env", "--passphrase", "--json", "--help"])
    }

    @Test func versionAndHelp() throws {
        let runner = try VeinRunner()
        defer { runner.cleanUp() }
        let version = try runner.vein(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("vein 0.1.0 (SQLCipher 3.4.1, SQLite 3.15.2)"))
        let help = try runner.vein(["help", "create"])
        #expect(help.status == 0)
        #expect(help.stdout == (try VeinCommandLine.help(for: ["create"])))
        #expect(try runner.vein(["create", "--help"]).stdout == help.stdout)
        let top = try runner.vein([])
        #expect(top.status == 0)
        #expect(top.stdout.contains("Commands:"))
    }

    /// Every command path of the table, groups included: `[]`, `["key"]`, `["key", "rotate"]`, …
    static var commandPaths: [[String]] {
        var paths: [[String]] = [[]]
        func visit(_ spec: CommandSpec, _ path: [String]) {
            for sub in spec.subcommands {
                paths.append(path + [sub.name])
                visit(sub, path + [sub.name])
            }
        }
        visit(CommandTable.root, [])
        return paths
    }

    /// `vein help key rotate` is `vein key rotate --help`, for every command. Before: 'help' took one word,
    /// and `help key rotate`, `help key status`, `help migrate check` and `help migrate status` exited 64.
    @Test func helpTakesEveryCommandAsItIsWritten() throws {
        let runner = try VeinRunner()
        defer { runner.cleanUp() }
        for path in Self.commandPaths {
            let help = try runner.vein(["help"] + path)
            #expect(help.status == 0, "vein help \(path.joined(separator: " ")): \(help.stderr)")
            #expect(help.stdout == (try runner.vein(path + ["--help"])).stdout, "\(path)")
        }
        let unknown = try runner.vein(["help", "key", "rotat"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "vein: error: no help for unknown command 'key rotat' (did you mean 'rotate'?)\nhint: see 'vein help'\n")
    }

    /// The man page each `--help` points at is one the table makes, and is committed. Before: `vein key
    /// --help` named `man vein-key`, which did not exist.
    @Test func everyManPageHelpNamesExists() throws {
        let pages = Set(GeneratedDocs.files().map(\.0))
        for path in Self.commandPaths where !path.isEmpty {
            let help = try VeinCommandLine.help(for: path)
            let named = help.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("See also: man ") else { return nil }
                return String(line.dropFirst("See also: man ".count))
            }
            #expect(named.count == 1, "\(path)")
            for page in named {
                #expect(pages.contains("man/\(page).1"), "\(path) names man \(page), which the table does not make")
                #expect(FileManager.default.fileExists(atPath: VeinRunner.packageRoot.appendingPathComponent("man/\(page).1").path),
                        "man/\(page).1 is not committed")
            }
        }
    }
}
