precedencegroup ChannelSendPrecedence {
    higherThan: AssignmentPrecedence
    lowerThan: TernaryPrecedence
    associativity: none
}

/// `await chan <- value` sends a value on a channel (CAMA's notation).
infix operator <- : ChannelSendPrecedence

/// Sends `value` on `chan`, waiting for room if it is full. A closed channel drops the value;
/// use ``Chan/send(_:)`` to learn whether it was accepted.
package func <- <Element>(chan: Chan<Element>, value: Element) async {
    await chan.send(value)
}
