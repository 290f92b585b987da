import Foundation
import VeinCore

/// A model with SwiftData's compound uniqueness constraint, written as its documentation writes it: a
/// person is one row per first and last name together, and one per email. `CompoundUniqueTests` uses it.
enum CompoundUniqueSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Person.self]

    @Model final class Person {
        #Unique<Person>([\.firstName, \.lastName], [\.email])
        var firstName: String
        var lastName: String
        var email: String?
        var age: Int = 0

        init(firstName: String, lastName: String, email: String? = nil, age: Int = 0) {
            self.firstName = firstName
            self.lastName = lastName
            self.email = email
            self.age = age
        }
    }
}
