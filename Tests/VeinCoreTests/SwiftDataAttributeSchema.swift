import Foundation
import VeinCore

/// A model written as SwiftData's documentation writes one: `@Attribute` with its options, `#Unique`,
/// `@Transient`. `AttributeOptionTests` saves and fetches it.
enum TripSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Trip.self]

    @Model final class Trip {
        #Unique<Trip>([\.code])
        @Attribute(.unique) var name: String
        var destination: String
        var code: String
        @Attribute(.externalStorage) var photo: Data?
        @Attribute(.unique, originalName: "reference") var booking: String
        @Attribute(.preserveValueOnDeletion) var notes: String = ""
        @Transient var isSelected: Bool = false
        @Transient var lastViewed: Date?

        init(name: String, destination: String, code: String, booking: String) {
            self.name = name
            self.destination = destination
            self.code = code
            self.booking = booking
        }
    }
}
typealias Trip = TripSchema.Trip
