/// This build's version, recorded in `_vein_meta` and `_vein_history` by every store it writes.
public enum VeinVersion {
    public static let current = "0.1.0"
    /// The store format (`_vein_meta.formatVersion`) this build reads and writes. Format 2 (SPEC §2) keeps
    /// relationships in indexed columns and link tables; format 1 kept a to-many as a JSON array on its
    /// owner. No release wrote format 1, so it is refused, not upgraded.
    public static let storeFormat = 2
}
