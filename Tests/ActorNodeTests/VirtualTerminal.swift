@testable import ActorNode

/// A terminal in memory for tests of what the renderer writes: it understands the sequences the
/// kit uses (cursor moves, erasing, the scrolling region, index and reverse index; styles are
/// skipped) and keeps the screen as rows of cells, so a test can compare what a terminal would
/// show with the frame that was meant.
struct VirtualTerminal {
    let rows: Int
    let columns: Int
    /// Each cell's character; "" for the right half of a wide character.
    private(set) var cells: [[String]]
    private var row = 0
    private var column = 0
    private var region: Range<Int>
    /// Text written past the right edge (which the kit must never do).
    private(set) var overflows = 0

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        region = 0 ..< rows
    }

    /// Row `index` as text, without trailing spaces.
    func text(_ index: Int) -> String {
        var text = cells[index].joined()
        while text.last == " " { text.removeLast() }
        return text
    }

    var screen: [String] { (0 ..< rows).map(text) }

    mutating func write(_ output: String) {
        var characters = Array(output)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\u{1B}":
                guard let next = characters.popFirst() else { return }
                switch next {
                case "[":
                    var parameters = ""
                    while let byte = characters.first, !("@" ... "~").contains(byte) {
                        parameters.append(byte)
                        characters.removeFirst()
                    }
                    guard let final = characters.popFirst() else { return }
                    control(final, parameters)
                case "D": index()
                case "M": reverseIndex()
                default: break
                }
            case "\r":
                column = 0
            case "\n":
                index()
                column = 0
            default:
                put(character)
            }
        }
    }

    private mutating func control(_ final: Character, _ parameters: String) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch final {
        case "H":
            row = min(rows - 1, max(1, numbers.first ?? 1) - 1)
            column = min(columns - 1, max(1, numbers.count > 1 ? numbers[1] : 1) - 1)
        case "C":
            column = min(columns - 1, column + max(1, numbers.first ?? 1))
        case "J" where parameters == "2":
            cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        case "K":
            for index in column ..< columns { cells[row][index] = " " }
        case "r":
            region = numbers.count == 2 && numbers[0] >= 1 ? numbers[0] - 1 ..< numbers[1] : 0 ..< rows
            (row, column) = (0, 0)
        default:
            // Styles (m), the cursor shown or hidden (h, l): nothing to keep.
            break
        }
    }

    private mutating func put(_ character: Character) {
        let width = DisplayWidth.of(character)
        guard width > 0 else { return }
        guard column + width <= columns else {
            overflows += 1
            return
        }
        cells[row][column] = String(character)
        if width == 2 { cells[row][column + 1] = "" }
        column += width
    }

    private mutating func index() {
        if row == region.upperBound - 1 {
            cells.remove(at: region.lowerBound)
            cells.insert(Array(repeating: " ", count: columns), at: region.upperBound - 1)
        } else if row < rows - 1 {
            row += 1
        }
    }

    private mutating func reverseIndex() {
        if row == region.lowerBound {
            cells.remove(at: region.upperBound - 1)
            cells.insert(Array(repeating: " ", count: columns), at: region.lowerBound)
        } else if row > 0 {
            row -= 1
        }
    }
}
