import Testing
@testable import Wire

/// Looking a member up one by one in a small object finds what the hashed lookup finds.
@Suite("A member's index")
struct MemberLookupTests {
    @Test("agrees with index(forKey:) for objects of 0 to 12 members, present and absent keys")
    func agreesWithTheHashedLookup() {
        let names = ["a", "b", "value", "counter", "é", "ẞ", "a-rather-long-key-past-fifteen-bytes", "", "0", "Z", "todo", "x", "y"]
        for size in 0 ... 12 {
            let members = Dictionary(uniqueKeysWithValues: names.prefix(size).enumerated().map { ($1, JSONValue.integer(Int64($0))) })
            // "e" and a combining acute accent is "é" to a Swift string, in both lookups.
            for name in names + ["absent", "A", "e\u{301}"] {
                let found = members.memberIndex(name)
                #expect(found == members.index(forKey: name), "\(name) among \(size)")
                if let found { #expect(members[found].key == name) }
            }
        }
    }
}
