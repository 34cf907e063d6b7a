/// One line of a frame as the terminal shows it: spans of escaped text, each in a style, cut to
/// the width; a key saying which row it shows (a row's key from its list, so the renderer can
/// tell a line that moved from one that changed); and the style of the whole line (a reversed
/// line is a bar across the width).
package struct ScreenLine: Equatable {
    /// Text in one style.
    package struct Span: Equatable, Sendable {
        package var text: String
        package var style: Style

        package init(_ text: String, _ style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    package var key: AnyHashable
    package var spans: [Span]
    package var style: Style

    /// - Parameters:
    ///   - key: which row this is.
    ///   - spans: its text, already escaped and cut.
    ///   - style: the whole line's style.
    package init(key: AnyHashable, spans: [Span], style: Style = .plain) {
        self.key = key
        self.spans = spans.filter { !$0.text.isEmpty }
        self.style = style
    }

    /// A line of one span of text, escaped and cut to `columns`.
    /// - Parameters:
    ///   - key: which row this is.
    ///   - text: any text.
    ///   - style: how it is drawn.
    ///   - columns: the width.
    package init(key: AnyHashable, text: String, style: Style = .plain, columns: Int) {
        self.init(key: key, row: Row(text, style), columns: columns)
    }

    /// An app's row laid out on `columns` columns: every cell's text escaped (``PeerText``), the
    /// first cell that fills cut or padded to the width the others leave, and the line cut at
    /// its end with "…" when it is still too wide (a filling cell that has no column left is
    /// dropped with what follows it).
    /// - Parameters:
    ///   - key: which row this is.
    ///   - row: the app's row.
    ///   - columns: the width.
    package init(key: AnyHashable, row: Row, columns: Int) {
        let width = max(1, columns)
        var spans = row.cells.map { Span(PeerText.escaped($0.text), $0.style) }
        if let fill = row.cells.firstIndex(where: \.fills) {
            var fixed = 0
            for index in spans.indices where index != fill {
                fixed += DisplayWidth.of(spans[index].text)
            }
            let available = width - fixed
            if available >= 1 {
                spans[fill].text = DisplayWidth.fit(spans[fill].text, to: available)
            } else {
                spans.removeSubrange(fill + 1 ..< spans.count)
            }
        }
        self.init(key: key, spans: Self.cut(spans, to: width), style: row.style)
    }

    /// The line's text, without styles.
    package var text: String {
        spans.count == 1 ? spans[0].text : spans.map(\.text).joined()
    }

    /// Whether the terminal shows both lines alike (their keys aside).
    /// - Parameter other: another line.
    package func looksLike(_ other: ScreenLine) -> Bool {
        style == other.style && spans == other.spans
    }

    /// `spans` cut to at most `width` columns, ending in "…" when something was cut (as
    /// ``DisplayWidth/truncate(_:to:)`` cuts their text joined).
    /// - Parameters:
    ///   - spans: the spans.
    ///   - width: the most columns.
    package static func cut(_ spans: [Span], to width: Int) -> [Span] {
        guard width > 0 else { return [] }
        var total = 0
        for span in spans {
            total += DisplayWidth.of(span.text)
            if total > width { break }
        }
        guard total > width else { return spans }
        var result: [Span] = []
        var used = 0
        for span in spans {
            var kept = ""
            var full = false
            for character in span.text {
                let next = DisplayWidth.of(character)
                if used + next > width - 1 {
                    full = true
                    break
                }
                kept.append(character)
                used += next
            }
            if full {
                result.append(Span(kept + "…", span.style))
                break
            }
            result.append(Span(kept, span.style))
        }
        return result
    }
}
