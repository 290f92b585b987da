/// Shell completion scripts (bash, zsh, fish) from the command table.
package enum CompletionRenderer {
    package enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
        package var fileName: String {
            switch self {
            case .bash: return "vein.bash"
            case .zsh: return "_vein"
            case .fish: return "vein.fish"
            }
        }
    }

    package static func script(for shell: Shell, root: CommandSpec) -> String {
        switch shell {
        case .bash: return bash(root)
        case .zsh: return zsh(root)
        case .fish: return fish(root)
        }
    }

    /// Every command in the tree with its path, root first.
    static func walk(_ root: CommandSpec) -> [(path: [String], spec: CommandSpec)] {
        var result: [([String], CommandSpec)] = [([], root)]
        func visit(_ spec: CommandSpec, _ path: [String]) {
            for sub in spec.subcommands {
                result.append((path + [sub.name], sub))
                visit(sub, path + [sub.name])
            }
        }
        visit(root, [])
        return result
    }

    static let header = "vein (generated from the command table by `make docs`; do not edit)"

    // MARK: bash

    static func bash(_ root: CommandSpec) -> String {
        let commands = walk(root)
        var out = "# bash completion for \(header)\n"
        out += "_vein() {\n"
        out += "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        out += "    local path=\"\" word candidate i opts=\"\" subs=\"\" positional=\"file\"\n"
        out += "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        out += "        word=\"${COMP_WORDS[i]}\"\n"
        out += "        candidate=\"${path:+$path }$word\"\n"
        out += "        case \"$candidate\" in\n"
        let paths = commands.dropFirst().map { $0.path.joined(separator: " ") }
        out += "            " + paths.map { "\"\($0)\"" }.joined(separator: "|") + ") path=\"$candidate\" ;;\n"
        out += "        esac\n"
        out += "    done\n"
        out += "    case \"$path\" in\n"
        for (path, spec) in commands {
            let options = spec.allOptions.map { "--\($0.long)" } + (path.isEmpty ? ["--version"] : [])
            out += "        \"\(path.joined(separator: " "))\")\n"
            out += "            opts=\"\(options.joined(separator: " "))\"\n"
            if !spec.subcommands.isEmpty { out += "            subs=\"\(spec.subcommands.map(\.name).joined(separator: " "))\"\n" }
            if let kind = spec.arguments.first?.completion { out += "            positional=\"\(bashKind(kind, root: root))\"\n" }
            out += "            ;;\n"
        }
        out += "    esac\n"
        out += "    case \"$path:$prev\" in\n"
        for (path, spec) in commands {
            for option in spec.options where !option.isFlag {
                out += "        \"\(path.joined(separator: " ")):--\(option.long)\")"
                out += " _vein_complete \"\(bashKind(option.completion, root: root))\"; return ;;\n"
            }
        }
        out += "    esac\n"
        out += "    if [[ $cur == -* ]]; then\n"
        out += "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        out += "    elif [[ -n $subs ]]; then\n"
        out += "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
        out += "    else\n"
        out += "        _vein_complete \"$positional\"\n"
        out += "    fi\n"
        out += "}\n\n"
        out += "_vein_complete() {\n"
        out += "    local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
        out += "    case \"$1\" in\n"
        out += "        file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
        out += "        directory) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
        out += "        none) COMPREPLY=() ;;\n"
        out += "        *) COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")) ;;\n"
        out += "    esac\n"
        out += "}\n\n"
        out += "complete -F _vein vein\n"
        return out
    }

    static func bashKind(_ kind: CompletionKind, root: CommandSpec) -> String {
        switch kind {
        case .none: return "none"
        case .file, .fileWithExtensions: return "file"
        case .directory: return "directory"
        case .choices(let choices): return choices.joined(separator: " ")
        case .commandNames: return root.subcommands.map(\.name).joined(separator: " ")
        }
    }

    // MARK: zsh

    static func zsh(_ root: CommandSpec) -> String {
        var out = "#compdef vein\n# zsh completion for \(header)\n\n"
        for (path, spec) in walk(root).reversed() {
            let function = (["_vein"] + path).joined(separator: "_")
            out += "\(function)() {\n"
            var specs = spec.allOptions.map { zshOption($0, root: root) }
            if path.isEmpty { specs.append("'--version[Print the version of vein.]'") }
            if spec.subcommands.isEmpty {
                for (i, argument) in spec.arguments.enumerated() {
                    let optional = argument.isOptional ? ":" : ""
                    specs.append("'\(optional)\(i + 1):\(argument.name):\(zshAction(argument.completion, root: root))'")
                }
                out += "    _arguments -s \\\n        " + specs.joined(separator: " \\\n        ") + "\n"
            } else {
                out += "    local -a subcommands\n"
                out += "    subcommands=(\n"
                for sub in spec.subcommands { out += "        '\(sub.name):\(zshEscape(sub.abstract, colon: true))'\n" }
                out += "    )\n"
                out += "    local curcontext=\"$curcontext\" state line\n"
                out += "    _arguments -C \\\n        " + specs.joined(separator: " \\\n        ")
                out += " \\\n        '1: :->command' \\\n        '*:: :->arguments'\n"
                out += "    case $state in\n"
                out += "        command) _describe -t commands 'vein command' subcommands ;;\n"
                out += "        arguments)\n"
                out += "            case $words[1] in\n"
                for sub in spec.subcommands {
                    out += "                \(sub.name)) \((["_vein"] + path + [sub.name]).joined(separator: "_")) ;;\n"
                }
                out += "            esac\n"
                out += "            ;;\n"
                out += "    esac\n"
            }
            out += "}\n\n"
        }
        out += "_vein \"$@\"\n"
        return out
    }

    static func zshOption(_ option: OptionSpec, root: CommandSpec) -> String {
        let help = zshEscape(option.help, colon: false)
        let value = option.valueName.map { ":\($0):\(zshAction(option.completion, root: root))" } ?? ""
        let repeat_ = option.isRepeatable ? "*" : ""
        if let short = option.short {
            return "'(-\(short) --\(option.long))'{-\(short),--\(option.long)}'[\(help)]\(value)'"
        }
        return "'\(repeat_)--\(option.long)[\(help)]\(value)'"
    }

    static func zshAction(_ kind: CompletionKind, root: CommandSpec) -> String {
        switch kind {
        case .none: return " "
        case .file: return "_files"
        case .fileWithExtensions(let exts): return "_files -g \"*.(\(exts.joined(separator: "|")))\""
        case .directory: return "_files -/"
        case .choices(let choices): return "(\(choices.joined(separator: " ")))"
        case .commandNames: return "(\(root.subcommands.map(\.name).joined(separator: " ")))"
        }
    }

    static func zshEscape(_ text: String, colon: Bool) -> String {
        var out = text.replacingOccurrences(of: "'", with: "'\\''")
            .replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
        if colon { out = out.replacingOccurrences(of: ":", with: "\\:") }
        return out
    }

    // MARK: fish

    static func fish(_ root: CommandSpec) -> String {
        var out = "# fish completion for \(header)\n"
        out += "complete -c vein -f\n"
        out += "complete -c vein -n __fish_use_subcommand -l version -d 'Print the version of vein.'\n"
        for (path, spec) in walk(root) {
            let condition: String
            if path.isEmpty {
                condition = "__fish_use_subcommand"
            } else {
                condition = path.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            }
            if !spec.subcommands.isEmpty {
                let subNames = spec.subcommands.map(\.name).joined(separator: " ")
                let subCondition = path.isEmpty ? condition : "\(condition); and not __fish_seen_subcommand_from \(subNames)"
                for sub in spec.subcommands {
                    out += "complete -c vein -n '\(subCondition)' -a \(sub.name) -d '\(fishEscape(sub.abstract))'\n"
                }
            }
            for option in spec.allOptions {
                var line = "complete -c vein -n '\(condition)'"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.long)"
                if !option.isFlag {
                    line += " -r"
                    switch option.completion {
                    case .file, .fileWithExtensions, .directory: line += " -F"
                    case .choices(let c): line += " -a '\(c.joined(separator: " "))'"
                    case .commandNames: line += " -a '\(root.subcommands.map(\.name).joined(separator: " "))'"
                    case .none: break
                    }
                }
                line += " -d '\(fishEscape(option.help))'"
                out += line + "\n"
            }
            if spec.subcommands.isEmpty, let argument = spec.arguments.first, !path.isEmpty {
                switch argument.completion {
                case .file, .fileWithExtensions, .directory: out += "complete -c vein -n '\(condition)' -F\n"
                case .choices(let c): out += "complete -c vein -n '\(condition)' -a '\(c.joined(separator: " "))'\n"
                case .commandNames: out += "complete -c vein -n '\(condition)' -a '\(root.subcommands.map(\.name).joined(separator: " "))'\n"
                case .none: break
                }
            }
        }
        return out
    }

    static func fishEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
