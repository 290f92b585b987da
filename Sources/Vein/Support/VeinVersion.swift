/// This build's version, recorded in `_vein_meta` and `_vein_migrations` by every store it writes.
public enum VeinVersion {
    public static let current = "0.1.0"
    /// The store format (`_vein_meta.formatVersion`) this build writes; `StoreFormat.current` names its tables
    /// and columns.
    public static let storeFormat = 3
}
