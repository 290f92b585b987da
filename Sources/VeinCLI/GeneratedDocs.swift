import Vein

/// The committed files produced from the command table: man pages and completion scripts. A test
/// compares these with the files in the repository, so a change to a command cannot ship without them.
package enum GeneratedDocs {
    /// `(path relative to the package root, contents)`.
    package static func files() -> [(String, String)] {
        let man: [(String, String)] = ManRenderer.pages(root: CommandTable.root, version: VeinVersion.current).map { ("man/\($0.name)", $0.text) }
        let completions: [(String, String)] = CompletionRenderer.Shell.allCases.map {
            ("completions/\($0.fileName)", CompletionRenderer.script(for: $0, root: CommandTable.root))
        }
        return man + completions
    }
}
