import Foundation

/// Where the REPL keeps its history. History holds data (ids, values typed in conditions), so an
/// encrypted store's stays in memory unless the person names a file; a plaintext store's goes to
/// `~/.vein_history`, or `VEIN_HISTORY` (empty: none).
enum HistoryPolicy {
    /// A history file, and whether the person named it (`--history`, `VEIN_HISTORY`) or it is the default.
    struct File: Equatable {
        let path: String
        let named: Bool
    }

    static func file(explicit: String?, encrypted: Bool, environment: [String: String]) -> File? {
        if let explicit { return File(path: explicit, named: true) }
        if encrypted { return nil }
        if let configured = environment["VEIN_HISTORY"] { return configured.isEmpty ? nil : File(path: configured, named: true) }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return File(path: URL(fileURLWithPath: home).appendingPathComponent(".vein_history").path, named: false)
    }
}
