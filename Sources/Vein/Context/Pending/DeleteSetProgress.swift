/// How far the temporary delete set (`DeleteSet`) holds a context's pending deletes, closed under the
/// delete rules by `applyDeleteRules`: its next call adds only the deletes made since, from `nextRound`.
struct DeleteSetProgress {
    /// The first round free for the next deletes.
    let nextRound: Int64
    /// The id of the marker row the run left in the set (model ''): gone, or another, once a rolled-back
    /// transaction or a refill of the set (a save) has changed what the set holds.
    let marker: String
}
