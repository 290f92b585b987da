import Testing

/// Each persisted `var` gets a stored marker (`_$assigned_name`, empty) that its `init` accessor
/// initializes, so that Swift's definite initialization requires an initializer to assign it.
@Suite struct AssignedMarkerMacroTests {
    static let model = MacroExpansion("""
        @Model final class M {
            var name: String
            var note: String?
            var views: Int = 0
            @Relationship var owner: Person?
            @Relationship var pets: [Pet] = []
            let id: Int
        }
        """)

    @Test func eachPersistedVarHasAMarkerAndALetHasNone() {
        #expect(Self.model.messages == [])
        for name in ["name", "note", "views", "owner", "pets"] {
            #expect(Self.model.expanded.contains("nonisolated(unsafe) private var _$assigned_\(name): VeinCore._Assigned\n"))
        }
        #expect(!Self.model.expanded.contains("_$assigned_id"))
    }

    /// Swift calls an optional's `init` accessor with nil at the start of every initializer: that nil is
    /// not recorded as a value the app gave unless it undoes one.
    @Test func anOptionalFieldSkipsTheNilSwiftInitializesItWith() {
        #expect(Self.model.expanded.contains("""
                    @storageRestrictions(initializes: _$assigned_note, accesses: _$backing)
                    init(initialValue) {
                        _$assigned_note = VeinCore._Assigned()
                        if initialValue == nil, !_$backing.hasPendingValue("note") {
                            return
                        }
                        if !_$backing.initializesRelationship("note", initialValue) {
                            _$backing.setField("note", column: 1, initialValue)
                        }
                    }
            """))
    }

    @Test func aRelationshipIsInitializedThroughTheBacking() {
        #expect(Self.model.expanded.contains("""
                    @storageRestrictions(initializes: _$assigned_owner, accesses: _$backing)
                    init(initialValue) {
                        _$assigned_owner = VeinCore._Assigned()
                        _$backing.initializeToOne("owner", initialValue)
                    }
            """))
        #expect(Self.model.expanded.contains(#"_$backing.initializeToMany("pets", initialValue)"#))
    }

    /// A fetched row initializes the markers Swift does not: not the optional's nor those with an initial
    /// value, whose `init` accessors Swift calls.
    @Test func theFetchInitInitializesTheRequiredMarkers() {
        #expect(Self.model.expanded.contains("""
                init(_$object object: VeinCore.ModelObject) {
                    _$backing.attach(object)
                    _$assigned_name = VeinCore._Assigned()
                    self.id = _$backing.field("id", column: 3, as: (Int).self)
                }
            """))
    }
}
