# bash completion for vein (generated from the command table by `make docs`; do not edit)
_vein() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local path="" word candidate i opts="" subs="" positional="file"
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        candidate="${path:+$path }$word"
        case "$candidate" in
            "create"|"info"|"schema"|"verify"|"query"|"repl"|"migrate"|"migrate status"|"migrate check"|"upgrade"|"export"|"import"|"history"|"history enable"|"history prune"|"history retention"|"history purge"|"key"|"key rotate"|"key status"|"key forget"|"encrypt"|"decrypt"|"backup"|"backup verify"|"backup export-key"|"restore"|"sync"|"sync init"|"sync join"|"sync status"|"sync conflicts"|"sync export-key"|"sync rotate-key"|"sync prune"|"sync forget"|"completions"|"help") path="$candidate" ;;
        esac
    done
    case "$path" in
        "")
            opts="--help --version"
            subs="create info schema verify query repl migrate upgrade export import history key encrypt decrypt backup restore sync completions help"
            ;;
        "create")
            opts="--schema --plaintext --history --key-file --key-env --passphrase --weak-passphrase --json --quiet --help"
            positional="file"
            ;;
        "info")
            opts="--key-file --key-env --passphrase --json --help"
            positional="file"
            ;;
        "schema")
            opts="--key-file --key-env --passphrase --json --swift --help"
            positional="file"
            ;;
        "verify")
            opts="--key-file --key-env --passphrase --json --quiet --help"
            positional="file"
            ;;
        "query")
            opts="--format --csv-safe --dry-run --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "repl")
            opts="--read-only --history --force --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "migrate")
            opts="--plan --to --dry-run --accept-changed-plan --wait --json --quiet --key-file --key-env --passphrase --help"
            subs="status check"
            positional="file"
            ;;
        "migrate status")
            opts="--plan --exit-code --json --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "migrate check")
            opts="--fixture --format --json --quiet --help"
            positional="file"
            ;;
        "upgrade")
            opts="--key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "export")
            opts="--output --force --format --model --where --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "import")
            opts="--format --upsert --create --schema --plaintext --json --quiet --key-file --key-env --passphrase --weak-passphrase --help"
            positional="file"
            ;;
        "history")
            opts="--since --model --id --author --format --key-file --key-env --passphrase --json --help"
            subs="enable prune retention purge"
            positional="file"
            ;;
        "history enable")
            opts="--key-file --key-env --passphrase --json --help"
            positional="file"
            ;;
        "history prune")
            opts="--before --keep --key-file --key-env --passphrase --json --help"
            positional="file"
            ;;
        "history retention")
            opts="--days --count --size --all --key-file --key-env --passphrase --json --help"
            positional="file"
            ;;
        "history purge")
            opts="--id --key-file --key-env --passphrase --json --help"
            positional="file"
            ;;
        "key")
            opts="--help"
            subs="rotate status forget"
            ;;
        "key rotate")
            opts="--to-keyring --to-key-file --force --to-passphrase --json --quiet --key-file --key-env --passphrase --weak-passphrase --help"
            positional="file"
            ;;
        "key status")
            opts="--json --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "key forget")
            opts="--purge --quiet --help"
            positional="file"
            ;;
        "encrypt")
            opts="--key-file --key-env --passphrase --weak-passphrase --json --quiet --help"
            positional="file"
            ;;
        "decrypt")
            opts="--key-file --key-env --passphrase --json --quiet --help"
            positional="file"
            ;;
        "backup")
            opts="--new-key --continuous --watch --backup-key-file --keep-days --json --quiet --key-file --key-env --passphrase --help"
            subs="verify export-key"
            positional="file"
            ;;
        "backup verify")
            opts="--store --backup-key-file --key-file --key-env --passphrase --json --quiet --help"
            positional="file"
            ;;
        "backup export-key")
            opts="--to --backup-key-file --key-file --key-env --passphrase --weak-passphrase --help"
            positional="file"
            ;;
        "restore")
            opts="--at --backup-key-file --plaintext --key-file --key-env --passphrase --weak-passphrase --json --quiet --help"
            positional="file"
            ;;
        "sync")
            opts="--watch --json --quiet --key-file --key-env --passphrase --help"
            subs="init join status conflicts export-key rotate-key prune forget"
            positional="file"
            ;;
        "sync init")
            opts="--relay --sync-key-file --json --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "sync join")
            opts="--relay --sync-key-file --plaintext --key-file --key-env --passphrase --weak-passphrase --json --quiet --help"
            positional="file"
            ;;
        "sync status")
            opts="--json --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "sync conflicts")
            opts="--keep --id --json --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "sync export-key")
            opts="--to --key-file --key-env --passphrase --weak-passphrase --help"
            positional="file"
            ;;
        "sync rotate-key")
            opts="--sync-key-file --json --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "sync prune")
            opts="--json --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "sync forget")
            opts="--replica --json --quiet --key-file --key-env --passphrase --help"
            positional="file"
            ;;
        "completions")
            opts="--help"
            positional="bash zsh fish"
            ;;
        "help")
            opts="--help"
            positional="create info schema verify query repl migrate upgrade export import history key encrypt decrypt backup restore sync completions help"
            ;;
    esac
    case "$path:$prev" in
        "create:--schema") _vein_complete "file"; return ;;
        "create:--key-file") _vein_complete "file"; return ;;
        "create:--key-env") _vein_complete "none"; return ;;
        "info:--key-file") _vein_complete "file"; return ;;
        "info:--key-env") _vein_complete "none"; return ;;
        "schema:--key-file") _vein_complete "file"; return ;;
        "schema:--key-env") _vein_complete "none"; return ;;
        "verify:--key-file") _vein_complete "file"; return ;;
        "verify:--key-env") _vein_complete "none"; return ;;
        "query:--format") _vein_complete "table json jsonl csv line"; return ;;
        "query:--key-file") _vein_complete "file"; return ;;
        "query:--key-env") _vein_complete "none"; return ;;
        "repl:--history") _vein_complete "file"; return ;;
        "repl:--key-file") _vein_complete "file"; return ;;
        "repl:--key-env") _vein_complete "none"; return ;;
        "migrate:--plan") _vein_complete "file"; return ;;
        "migrate:--to") _vein_complete "none"; return ;;
        "migrate:--wait") _vein_complete "none"; return ;;
        "migrate:--key-file") _vein_complete "file"; return ;;
        "migrate:--key-env") _vein_complete "none"; return ;;
        "migrate status:--plan") _vein_complete "file"; return ;;
        "migrate status:--key-file") _vein_complete "file"; return ;;
        "migrate status:--key-env") _vein_complete "none"; return ;;
        "migrate check:--fixture") _vein_complete "file"; return ;;
        "migrate check:--format") _vein_complete "json jsonl"; return ;;
        "upgrade:--key-file") _vein_complete "file"; return ;;
        "upgrade:--key-env") _vein_complete "none"; return ;;
        "export:--output") _vein_complete "file"; return ;;
        "export:--format") _vein_complete "json jsonl"; return ;;
        "export:--model") _vein_complete "none"; return ;;
        "export:--where") _vein_complete "none"; return ;;
        "export:--key-file") _vein_complete "file"; return ;;
        "export:--key-env") _vein_complete "none"; return ;;
        "import:--format") _vein_complete "json jsonl"; return ;;
        "import:--schema") _vein_complete "file"; return ;;
        "import:--key-file") _vein_complete "file"; return ;;
        "import:--key-env") _vein_complete "none"; return ;;
        "history:--since") _vein_complete "none"; return ;;
        "history:--model") _vein_complete "none"; return ;;
        "history:--id") _vein_complete "none"; return ;;
        "history:--author") _vein_complete "none"; return ;;
        "history:--format") _vein_complete "text json jsonl"; return ;;
        "history:--key-file") _vein_complete "file"; return ;;
        "history:--key-env") _vein_complete "none"; return ;;
        "history enable:--key-file") _vein_complete "file"; return ;;
        "history enable:--key-env") _vein_complete "none"; return ;;
        "history prune:--before") _vein_complete "none"; return ;;
        "history prune:--keep") _vein_complete "none"; return ;;
        "history prune:--key-file") _vein_complete "file"; return ;;
        "history prune:--key-env") _vein_complete "none"; return ;;
        "history retention:--days") _vein_complete "none"; return ;;
        "history retention:--count") _vein_complete "none"; return ;;
        "history retention:--size") _vein_complete "none"; return ;;
        "history retention:--key-file") _vein_complete "file"; return ;;
        "history retention:--key-env") _vein_complete "none"; return ;;
        "history purge:--id") _vein_complete "none"; return ;;
        "history purge:--key-file") _vein_complete "file"; return ;;
        "history purge:--key-env") _vein_complete "none"; return ;;
        "key rotate:--to-key-file") _vein_complete "file"; return ;;
        "key rotate:--key-file") _vein_complete "file"; return ;;
        "key rotate:--key-env") _vein_complete "none"; return ;;
        "key status:--key-file") _vein_complete "file"; return ;;
        "key status:--key-env") _vein_complete "none"; return ;;
        "encrypt:--key-file") _vein_complete "file"; return ;;
        "encrypt:--key-env") _vein_complete "none"; return ;;
        "decrypt:--key-file") _vein_complete "file"; return ;;
        "decrypt:--key-env") _vein_complete "none"; return ;;
        "backup:--backup-key-file") _vein_complete "file"; return ;;
        "backup:--keep-days") _vein_complete "none"; return ;;
        "backup:--key-file") _vein_complete "file"; return ;;
        "backup:--key-env") _vein_complete "none"; return ;;
        "backup verify:--store") _vein_complete "file"; return ;;
        "backup verify:--backup-key-file") _vein_complete "file"; return ;;
        "backup verify:--key-file") _vein_complete "file"; return ;;
        "backup verify:--key-env") _vein_complete "none"; return ;;
        "backup export-key:--to") _vein_complete "file"; return ;;
        "backup export-key:--backup-key-file") _vein_complete "file"; return ;;
        "backup export-key:--key-file") _vein_complete "file"; return ;;
        "backup export-key:--key-env") _vein_complete "none"; return ;;
        "restore:--at") _vein_complete "none"; return ;;
        "restore:--backup-key-file") _vein_complete "file"; return ;;
        "restore:--key-file") _vein_complete "file"; return ;;
        "restore:--key-env") _vein_complete "none"; return ;;
        "sync:--key-file") _vein_complete "file"; return ;;
        "sync:--key-env") _vein_complete "none"; return ;;
        "sync init:--relay") _vein_complete "file"; return ;;
        "sync init:--sync-key-file") _vein_complete "file"; return ;;
        "sync init:--key-file") _vein_complete "file"; return ;;
        "sync init:--key-env") _vein_complete "none"; return ;;
        "sync join:--relay") _vein_complete "file"; return ;;
        "sync join:--sync-key-file") _vein_complete "file"; return ;;
        "sync join:--key-file") _vein_complete "file"; return ;;
        "sync join:--key-env") _vein_complete "none"; return ;;
        "sync status:--key-file") _vein_complete "file"; return ;;
        "sync status:--key-env") _vein_complete "none"; return ;;
        "sync conflicts:--keep") _vein_complete "mine theirs"; return ;;
        "sync conflicts:--id") _vein_complete "none"; return ;;
        "sync conflicts:--key-file") _vein_complete "file"; return ;;
        "sync conflicts:--key-env") _vein_complete "none"; return ;;
        "sync export-key:--to") _vein_complete "file"; return ;;
        "sync export-key:--key-file") _vein_complete "file"; return ;;
        "sync export-key:--key-env") _vein_complete "none"; return ;;
        "sync rotate-key:--sync-key-file") _vein_complete "file"; return ;;
        "sync rotate-key:--key-file") _vein_complete "file"; return ;;
        "sync rotate-key:--key-env") _vein_complete "none"; return ;;
        "sync prune:--key-file") _vein_complete "file"; return ;;
        "sync prune:--key-env") _vein_complete "none"; return ;;
        "sync forget:--replica") _vein_complete "none"; return ;;
        "sync forget:--key-file") _vein_complete "file"; return ;;
        "sync forget:--key-env") _vein_complete "none"; return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ -n $subs ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    else
        _vein_complete "$positional"
    fi
}

_vein_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    case "$1" in
        file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
        directory) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
        none) COMPREPLY=() ;;
        *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
    esac
}

complete -F _vein vein
