import Foundation
import VeinCore

/// Models written as SwiftData's documentation and tutorials write them: enums declared `String, Codable`
/// (no Vein protocol), Codable structs and Foundation values as fields, relationships inferred from the
/// type (no `@Relationship`), an optional to-many, and SwiftData's `@Relationship(deleteRule:inverse:)`.
enum PetStore: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Person.self, Pet.self, Shelter.self]

    enum Status: String, Codable { case active, archived }
    enum Size: Int, Codable, CaseIterable { case small = 1, large = 2 }
    struct Address: Codable, Equatable { var street: String; var city: String }
    enum Contact: Codable, Equatable { case email(String), phone(number: String) }

    @Model final class Person {
        var name: String
        var status: Status
        var address: Address?
        var website: URL?
        var nicknames: Set<String> = []
        var scores: [String: Int] = [:]
        var luckyNumbers: [Int] = []
        var contact: Contact?
        @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet]? = []

        init(name: String, status: Status = .active, address: Address? = nil) {
            self.name = name
            self.status = status
            self.address = address
            self.website = nil
            self.contact = nil
        }
    }

    @Model final class Pet {
        var name: String
        var size: Size
        var owner: Person?

        init(name: String, size: Size = .small) {
            self.name = name
            self.size = size
            self.owner = nil
        }
    }

    @Model final class Shelter {
        var name: String
        var residents: [Pet]? = []
        var manager: Person?

        init(name: String) {
            self.name = name
            self.manager = nil
        }
    }
}
