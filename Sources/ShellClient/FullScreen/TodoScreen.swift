import ActorNode
import TodoContract
import Wire

/// The to-do app's full screen, on the framework's kit: its view (a title, the list with its
/// selection, the counter and the focus timer), its keys and its prompts. The terminal, the
/// selection following its item, scrolling, the help, the status line and line editing are the
/// kit's.
extension TodoShell: ScreenApp {
    /// What the view keeps between frames: the done items of each chunk of the list, so that
    /// the title's count costs the chunks that changed, not a pass over the list.
    final class DoneCount {
        var sums = ChunkSums()
    }

    static func ui(_ options: AttachOptions) -> DoneCount {
        DoneCount()
    }

    /// The title, the list (id, done mark, text, pomodoros; the focused item marked ◀), and the
    /// counter with the focus timer.
    static func view(_ state: AppState, _ done: DoneCount) -> Screen<Int> {
        let items = state.todo.items
        let focused = state.timer.running ? state.timer.item : nil
        return Screen(
            header: [Row(title(state, done: items.sum({ $0.done ? 1 : 0 }, cache: &done.sums)), .bold)],
            list: .selecting(items, empty: "  (no items: press a to add one)") { item, selected in
                itemRow(item, focused: item.id == focused, selected: selected)
            },
            footer: [Row(counterLine(state))])
    }

    /// ` CAMA to-do · 3 items, 1 done`.
    static func title(_ state: AppState, done: Int) -> String {
        let items = state.todo.items
        return " CAMA to-do · " + (items.isEmpty ? "no items" : "\(Wording.count(items.count, "item")), \(done) done")
    }

    /// `> 12 [x] buy milk                     2 🍅`: selection mark, id, done mark, the text
    /// taking the width left, pomodoros on the right.
    static func itemRow(_ item: TodoItem, focused: Bool, selected: Bool) -> Row {
        let right = (focused ? " ◀" : "") + (item.pomodoros > 0 ? " \(item.pomodoros)🍅" : "")
        return Row([Cell("\(selected ? ">" : " ") \(item.id) [\(item.done ? "x" : " ")] "), .fill(item.text)] + (right.isEmpty ? [] : [Cell(right)]))
    }

    /// ` counter 4 · focus 24:13 left · 3 water plants`: the time left comes before the item's
    /// text, so a long text is what gets cut, never the time.
    static func counterLine(_ state: AppState) -> String {
        let counter = " counter \(state.counter.value)"
        guard state.timer.running, let item = state.timer.item else { return counter + " · no focus" }
        let name = state.todo.items.first { $0.id == item }?.text ?? "?"
        return counter + " · focus \(StateText.clock(state.timer.remaining)) left · \(item) " + name
    }

    static let keys: [KeyBinding<TodoShell>] = [
        KeyBinding("a", help: "add an item (Enter sends, Esc cancels)") { _ in [.prompt(add)] },
        KeyBinding("e", help: "edit the selected item") { screen in
            guard let index = screen.selectedIndex else { return [] }
            let item = screen.state.todo.items[index]
            return [.prompt(edit(item.id), text: item.text)]
        },
        KeyBinding(" ", "x", label: "space or x", help: "mark done / not done") { screen in
            screen.selected.map { [.send(.todo(.toggle(id: $0)))] } ?? []
        },
        KeyBinding("d", .delete, label: "d", help: "delete the selected item") { screen in
            screen.selected.map { [.send(.todo(.remove(id: $0)))] } ?? []
        },
        KeyBinding("J", "K", help: "move the item down / up") { screen in
            guard let id = screen.selected, let index = screen.selectedIndex else { return [] }
            let down = screen.key == "J"
            guard down ? index + 1 < screen.count : index > 0 else { return [] }
            return [.send(.todo(.move(id: id, position: down ? index + 2 : index)))]
        },
        KeyBinding("c", help: "clear all (asks first)") { screen in
            screen.count == 0 ? [] : [.confirm("clear all \(screen.count) items?", yes: [.todo(.clear)])]
        },
        KeyBinding("+", "-", "0", "r", help: "counter: up, down, reset, random") { screen in
            let actions: [Key: CounterAction] = ["+": .increment, "-": .decrement, "0": .reset, "r": .randomize]
            return actions[screen.key].map { [.send(.counter($0))] } ?? []
        },
        KeyBinding("t", help: "focus on the selected item (25 min)") { screen in
            screen.selected.map { [.send(.timer(.start(id: $0, seconds: nil)))] } ?? []
        },
        KeyBinding("s", help: "stop the focus") { _ in [.send(.timer(.stop))] },
        KeyBinding("p", help: "focus on a random item not done") { _ in [.send(.timer(.pick))] },
    ]

    /// `add: `, for a new item's text.
    static let add = Prompt<TodoShell>("add: ") { text, _ in [.send(.todo(.add(text: text)))] }

    /// `edit: `, for a new text of item `id`.
    static func edit(_ id: Int) -> Prompt<TodoShell> {
        Prompt("edit: ") { text, _ in [.send(.todo(.edit(id: id, text: text)))] }
    }
}
