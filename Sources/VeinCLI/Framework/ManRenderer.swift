/// Man pages (roff, section 1) from command specs: `vein.1` for the tool, `vein-COMMAND.1` per command.
package enum ManRenderer {
    /// Every command has a page, a group of subcommands (`vein key`) too: its `--help` names it.
    package static func pages(root: CommandSpec, date: String = "2026-11-30", version: String) -> [(name: String, text: String)] {
        var pages = [("vein.1", page(root, path: [], version: version, date: date))]
        func visit(_ spec: CommandSpec, _ path: [String]) {
            for sub in spec.subcommands {
                let subPath = path + [sub.name]
                pages.append((pageName(subPath) + ".1", page(sub, path: subPath, version: version, date: date)))
                visit(sub, subPath)
            }
        }
        visit(root, [])
        return pages
    }

    /// A heading and its paragraphs; an indented paragraph is kept as it is written (examples, tables).
    static func section(_ title: String, _ text: String) -> String {
        var out = ".SH \(escape(title))\n"
        for paragraph in text.components(separatedBy: "\n\n") {
            if paragraph.hasPrefix(" ") {
                out += ".PP\n.nf\n\(escape(paragraph))\n.fi\n"
            } else {
                out += ".PP\n\(escape(paragraph.replacingOccurrences(of: "\n", with: " ")))\n"
            }
        }
        return out
    }

    static func page(_ spec: CommandSpec, path: [String], version: String, date: String) -> String {
        let name = pageName(path)
        var out = ".TH \(name.uppercased()) 1 \"\(date)\" \"vein \(version)\" \"Vein Manual\"\n"
        out += ".SH NAME\n\(escape(name)) \\- \(escape(spec.abstract))\n"
        out += ".SH SYNOPSIS\n.B \(escape(HelpRenderer.usage(spec, path: path)))\n"
        if !spec.discussion.isEmpty { out += section("DESCRIPTION", spec.discussion) }
        for (title, text) in spec.sections { out += section(title.uppercased(), text) }
        if !spec.subcommands.isEmpty {
            out += ".SH COMMANDS\n"
            for sub in spec.subcommands {
                out += ".TP\n.B \(escape(sub.name))\n\(escape(sub.abstract))"
                out += ". See \\fB\(escape(pageName(path + [sub.name])))\\fR(1).\n"
            }
        }
        if !spec.arguments.isEmpty {
            out += ".SH ARGUMENTS\n"
            for argument in spec.arguments { out += ".TP\n.I \(escape(argument.name))\n\(escape(argument.help))\n" }
        }
        out += ".SH OPTIONS\n"
        for option in spec.allOptions {
            var synopsis = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            synopsis += "\\fB\\-\\-\(escape(option.long))\\fR"
            if let v = option.valueName { synopsis += " \\fI\(escape(v))\\fR" }
            out += ".TP\n\(synopsis)\n\(escape(option.help))\n"
        }
        if path.isEmpty || spec.run != nil {
            out += ".SH EXIT STATUS\n"
            for code in ExitCode.allCases { out += ".TP\n.B \(code.rawValue)\n\(escape(code.meaning))\n" }
        }
        if !spec.examples.isEmpty {
            out += ".SH EXAMPLES\n"
            for (line, what) in spec.examples { out += ".TP\n.B \(escape(line))\n\(escape(what))\n" }
        }
        out += ".SH SEE ALSO\n"
        // The tool and the group a subcommand belongs to (`vein-key` for `vein key rotate`).
        let parents = path.indices.dropLast().map { pageName(Array(path[...$0])) }
        out += path.isEmpty ? "\\fBsqlcipher\\fR(1), \\fBsecret\\-tool\\fR(1)\n"
            : (["vein"] + parents).map { "\\fB\(escape($0))\\fR(1)" }.joined(separator: ", ") + "\n"
        return out
    }

    /// The page of a command path: `vein-key-rotate` for `key rotate`, `vein` for the tool. `--help` names
    /// the same page (`HelpRenderer`).
    package static func pageName(_ path: [String]) -> String { (["vein"] + path).joined(separator: "-") }

    /// Escapes roff: backslashes, leading dots and quotes, and hyphens meant literally.
    static func escape(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        out = out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
        return out
    }
}
