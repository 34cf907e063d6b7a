import ActorNode
import TodoContract
import Wire

/// How the state is shown: as text for people, as one JSON object per line for programs.
enum StateText {
    /// A header line, one line per item, then the counter and the timer:
    ///
    ///     revision 3: 2 items, 1 done
    ///       1 [ ] buy milk
    ///       2 [x] call mom (1 pomodoro)
    ///     counter: 0
    ///     timer: focus on 1, 24:13 left
    static func render(_ state: AppState, revision: UInt64) -> String {
        let items = state.todo.items
        let done = items.filter(\.done).count
        var text: String
        switch items.count {
        case 0: text = "revision \(revision): no items\n"
        case 1: text = "revision \(revision): 1 item, \(done) done\n"
        default: text = "revision \(revision): \(items.count) items, \(done) done\n"
        }
        // The widest id, not the largest: "-100" is wider than "5".
        let ids = items.map { String($0.id) }
        let width = ids.map(\.utf8.count).max() ?? 0
        text.reserveCapacity(text.utf8.count + items.count * (width + 24) + 64)
        for (item, id) in zip(items, ids) {
            // Appended piece by piece into the one string: no string made per piece.
            text += "  "
            for _ in id.utf8.count ..< width { text += " " }
            text += id
            text += item.done ? " [x] " : " [ ] "
            text += PeerText.escaped(item.text)
            switch item.pomodoros {
            case 0: break
            case 1: text += " (1 pomodoro)"
            default: text += " (\(item.pomodoros) pomodoros)"
            }
            text += "\n"
        }
        text += "counter: \(state.counter.value)\n"
        text += "timer: " + timer(state.timer) + "\n"
        return text
    }

    /// `focus on 3, 24:13 left`, or `idle`.
    static func timer(_ timer: TimerState) -> String {
        guard timer.running, let item = timer.item else { return "idle" }
        return "focus on \(item), \(clock(timer.remaining)) left"
    }

    /// Seconds as `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Int) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let hours = seconds / 3600
        let minutes = seconds / 60 % 60
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds % 60))" : "\(minutes):\(two(seconds % 60))"
    }
}
