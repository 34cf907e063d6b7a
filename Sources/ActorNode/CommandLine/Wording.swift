/// Small helpers for the sentences CAMA's tools print.
public enum Wording {
    /// A count with its noun, singular for one: "1 record", "3 records".
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
