/// `--help` text from a command spec.
enum HelpRenderer {
    static func usage(_ spec: CommandSpec, path: [String]) -> String {
        let words = (["vein"] + path).joined(separator: " ")
        if !spec.subcommands.isEmpty && spec.run == nil {
            return "\(words) <command> [options]"
        }
        var parts = [words]
        for argument in spec.arguments { parts.append(argument.isOptional ? "[\(argument.name)]" : argument.name) }
        for option in spec.options {
            var text = "--\(option.long)"
            if let v = option.valueName { text += " \(v)" }
            parts.append((option.isRequired ? text : "[\(text)]") + (option.isRepeatable ? "…" : ""))
        }
        return parts.joined(separator: " ")
    }

    static func render(_ spec: CommandSpec, path: [String]) -> String {
        var out = path.isEmpty ? "vein — \(spec.abstract)\n\n" : "\(spec.abstract)\n\n"
        out += "Usage: \(usage(spec, path: path))\n"
        if !spec.discussion.isEmpty { out += "\n" + wrap(spec.discussion, indent: 0) + "\n" }
        for (title, text) in spec.sections { out += "\n\(title):\n" + wrap(text, indent: 0) + "\n" }
        if !spec.subcommands.isEmpty {
            out += "\nCommands:\n"
            let width = (spec.subcommands.map { $0.name.count }.max() ?? 0) + 2
            for sub in spec.subcommands { out += "  " + pad(sub.name, width) + sub.abstract + "\n" }
        }
        if !spec.arguments.isEmpty {
            out += "\nArguments:\n"
            let width = (spec.arguments.map { $0.name.count }.max() ?? 0) + 2
            for argument in spec.arguments { out += "  " + pad(argument.name, width) + argument.help + "\n" }
        }
        let options = spec.allOptions
        out += "\nOptions:\n"
        let width = min(28, (options.map { $0.synopsis.count }.max() ?? 0) + 2)
        for option in options {
            let synopsis = option.synopsis
            if synopsis.count + 2 > width {
                out += "  \(synopsis)\n" + String(repeating: " ", count: width + 2) + option.help + "\n"
            } else {
                out += "  " + pad(synopsis, width) + option.help + "\n"
            }
        }
        if !spec.examples.isEmpty {
            out += "\nExamples:\n"
            for (line, what) in spec.examples { out += "  \(line)\n      \(what)\n" }
        }
        if !path.isEmpty { out += "\nSee also: man \(ManRenderer.pageName(path))\n" }
        return out
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// Wraps paragraphs (separated by blank lines) at 100 columns; lines starting with spaces are kept.
    static func wrap(_ text: String, indent: Int, width: Int = 100) -> String {
        text.components(separatedBy: "\n\n").map { paragraph -> String in
            if paragraph.hasPrefix(" ") { return paragraph }
            var lines: [String] = []
            var line = ""
            for word in paragraph.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                if !line.isEmpty && line.count + 1 + word.count > width - indent {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            if !line.isEmpty { lines.append(line) }
            return lines.map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
