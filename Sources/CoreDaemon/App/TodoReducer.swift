import ActorNode
import TodoContract
import Wire

/// The to-do list's logic: CAMA's ToDo, with stable ids and validation.
enum TodoReducer {
    /// The longest item text accepted, in characters (user-perceived: grapheme clusters)...
    static let maximumTextLength = 1000
    /// ...and in bytes of UTF-8, checked first: counting characters means scanning the text,
    /// and one "character" may hold millions of combining marks.
    static let maximumTextBytes = 4000

    static let reducer = Reducer<TodoState, TodoAction, Void> { state, action, _ throws(Rejection) in
        try reduce(&state, action)
        return .none
    }

    private static func reduce(_ state: inout TodoState, _ action: TodoAction) throws(Rejection) {
        switch action {
        case let .add(text):
            try validate(text)
            // Every id stays below nextId, so Int.max itself is never given.
            guard state.nextId < Int.max else {
                throw Rejection(code: TodoRejectCode.overflow, message: "no id is left for a new item: ids stop below \(Int.max)")
            }
            state.items.append(TodoItem(id: state.nextId, text: text))
            state.nextId += 1
        case .clear:
            state.items.removeAll()
        case let .remove(id):
            state.items.remove(at: try index(of: id, in: state))
        case let .toggle(id):
            state.items[try index(of: id, in: state)].done.toggle()
        case let .edit(id, text):
            let index = try index(of: id, in: state)
            try validate(text)
            state.items[index].text = text
        case let .move(id, position):
            let index = try index(of: id, in: state)
            guard (1 ... state.items.count).contains(position) else {
                throw Rejection(
                    code: TodoRejectCode.badPosition,
                    message: "position \(position) is out of range 1...\(state.items.count)")
            }
            let item = state.items.remove(at: index)
            state.items.insert(item, at: position - 1)
        }
    }

    private static func index(of id: Int, in state: TodoState) throws(Rejection) -> Int {
        guard let index = state.index(of: id) else {
            throw Rejection(code: TodoRejectCode.unknownItem, message: "no item with id \(id)")
        }
        return index
    }

    /// Checks an item's text, cheapest first: its size in bytes (known without scanning), then
    /// its length in characters and content (each scan bounded by the byte limit).
    private static let breaksTheLine: Set<Unicode.GeneralCategory> = [.control, .lineSeparator, .paragraphSeparator]

    private static func validate(_ text: String) throws(Rejection) {
        let bytes = text.utf8.count
        guard bytes <= maximumTextBytes else {
            throw Rejection(
                code: TodoRejectCode.invalidText,
                message: "item text is \(bytes) bytes of UTF-8; the limit is \(maximumTextBytes) bytes (and \(maximumTextLength) characters)")
        }
        // Printable ASCII, most text, is answered from its bytes: one line, one character a
        // byte, blank only if all spaces.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            guard text.utf8.contains(where: { $0 != UInt8(ascii: " ") }) else {
                throw Rejection(code: TodoRejectCode.emptyText, message: "an item needs some text")
            }
            guard bytes <= maximumTextLength else { throw tooLong(characters: bytes) }
            return
        }
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw Rejection(code: TodoRejectCode.emptyText, message: "an item needs some text")
        }
        guard !text.unicodeScalars.contains(where: { Self.breaksTheLine.contains($0.properties.generalCategory) }) else {
            throw Rejection(code: TodoRejectCode.invalidText, message: "item text must be one line without control characters")
        }
        let characters = text.count
        guard characters <= maximumTextLength else { throw tooLong(characters: characters) }
    }

    private static func tooLong(characters: Int) -> Rejection {
        Rejection(
            code: TodoRejectCode.invalidText,
            message: "item text is \(characters) characters; the limit is \(maximumTextLength) characters (and \(maximumTextBytes) bytes)")
    }
}
