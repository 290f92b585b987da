import Foundation

/// Where the REPL keeps its history. History holds data (ids, values typed in conditions), so an
/// encrypted store's stays in memory unless the person names a file; a plaintext store's goes to
/// `~/.vein_history`, or `VEIN_HISTORY` (empty: none).
enum HistoryPolicy {
    static func file(explicit: String?, encrypted: Bool, environment: [String: String]) -> String? {
        if let explicit { return explicit }
        if encrypted { return nil }
        if let configured = environment["VEIN_HISTORY"] { return configured.isEmpty ? nil : configured }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".vein_history").path
    }
}
