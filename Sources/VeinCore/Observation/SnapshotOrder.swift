/// The order of a live query's fetches, by their snapshots: each fetch takes a ticket under the context's
/// lock before its read transaction begins, and only an outcome newer than the last one applied is shown.
/// One that finishes after a newer one (`refresh()` on another thread while the queue refreshes, a queued
/// refresh racing the first fetch) is dropped, never shown over it; failures are ordered the same way.
struct SnapshotOrder {
    private var issued = 0
    private var applied = 0

    /// The ticket of a fetch about to take its snapshot.
    mutating func issue() -> Int {
        issued += 1
        return issued
    }

    /// Takes `ticket`'s outcome as the newest applied; false when a newer one was applied already.
    mutating func admit(_ ticket: Int) -> Bool {
        guard ticket > applied else { return false }
        applied = ticket
        return true
    }

    /// Whether `ticket` is still the newest applied (no newer outcome came between admitting and showing).
    func isLatest(_ ticket: Int) -> Bool { ticket == applied }
}
