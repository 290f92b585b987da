/// One thing wrong with a manifest: where (a JSON path such as `models.Post.fields.views`, or a line and
/// column for syntax errors) and what was expected.
package struct ManifestIssue: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    public var line: Int?
    public var column: Int?

    public init(path: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A manifest that cannot be used, with every issue found (validation does not stop at the first).
public struct ManifestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file name as the user gave it, for messages.
    public let file: String
    package let issues: [ManifestIssue]

    package init(file: String, issues: [ManifestIssue]) {
        self.file = file
        self.issues = issues
    }

    /// One line per issue: `blog.json5: models.Post.fields.views: unknown type "integer" (…)`.
    public var lines: [String] {
        issues.map { issue in
            if let line = issue.line, let column = issue.column { return "\(file):\(line):\(column): \(issue.message)" }
            return "\(file): \(issue)"
        }
    }

    public var description: String { lines.joined(separator: "\n") }
}
