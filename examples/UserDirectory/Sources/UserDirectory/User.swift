import Foundation
import VeinCore

/// The article's model, word for word: a unique `id` of the app's own and `let` properties.
@Model
final class User {
    @Attribute(.unique) let id: UUID
    let firstName: String
    let surname: String
    let age: Int

    init(id: UUID = UUID(), firstName: String, surname: String, age: Int) {
        self.id = id
        self.firstName = firstName
        self.surname = surname
        self.age = age
    }
}
