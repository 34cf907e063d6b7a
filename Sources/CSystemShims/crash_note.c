// The crash note: what the core is applying, kept where a handler for the signals of a crash
// can write it to a file before the process ends. Swift cannot catch a trap, and a signal
// handler may only call async-signal-safe functions, so this part is C: the note is a copy of
// the input's bytes per thread (buffers reused from one input to the next), set and cleared
// around each input, and the handler formats it with nothing but byte copies and write(2).
// The same handler gives a shell's terminal back (raw mode off, the alternate screen left)
// before the signal goes on, so a shell that traps does not leave its terminal unusable.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "CSystemShims.h"

#define CAMA_CRASH_NOTE_DEPTH 8

struct cama_crash_entry {
    int kind;
    uint64_t seq;
    int has_seq;
    size_t client_length;
    size_t length;
    // Owned: the client id's and the input's bytes, in one buffer that grows as needed.
    uint8_t *buffer;
    size_t capacity;
};

// Per thread: only the thread that applies actions sets a note, and a crash on another thread
// is not blamed on what that one was doing. Initial-exec TLS is plain memory the handler may
// read.
static __thread __attribute__((tls_model("initial-exec"))) struct cama_crash_entry notes[CAMA_CRASH_NOTE_DEPTH];
static __thread __attribute__((tls_model("initial-exec"))) int depth;

static int note_fd = -1;
static const int guarded_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV, SIGBUS };
#define GUARDED_COUNT (sizeof(guarded_signals) / sizeof(guarded_signals[0]))
static struct sigaction previous[GUARDED_COUNT];
static int handlers_installed;

// The terminal a shell holds (raw mode, the alternate screen), given back if the process ends
// while it holds it: by a crash (the handler below, before the signal goes on) or by exit()
// (an atexit hook). The settings to set again and the bytes to write first are copied when the
// shell takes the terminal; `terminal_armed` is set once they are in place.
static volatile sig_atomic_t terminal_armed;
static int terminal_fd = -1;
static struct termios terminal_settings;
static uint8_t terminal_bytes[128];
static size_t terminal_length;
static int terminal_exit_hook;

void cama_crash_note_push(int kind, const uint8_t *client, size_t client_length, uint64_t seq, int has_seq, const uint8_t *bytes, size_t length) {
    if (depth < CAMA_CRASH_NOTE_DEPTH) {
        struct cama_crash_entry *entry = &notes[depth];
        size_t needed = client_length + length;
        if (needed > entry->capacity) {
            size_t capacity = entry->capacity > 0 ? entry->capacity : 256;
            while (capacity < needed) capacity *= 2;
            uint8_t *buffer = realloc(entry->buffer, capacity);
            if (buffer == NULL) {
                // Noted without its bytes rather than not at all.
                client_length = 0;
                length = 0;
            } else {
                entry->buffer = buffer;
                entry->capacity = capacity;
            }
        }
        if (client_length > 0) memcpy(entry->buffer, client, client_length);
        if (length > 0) memcpy(entry->buffer + client_length, bytes, length);
        entry->kind = kind;
        entry->seq = seq;
        entry->has_seq = has_seq;
        entry->client_length = client_length;
        entry->length = length;
    }
    depth += 1;
}

void cama_crash_note_pop(void) {
    if (depth <= 0) return;
    depth -= 1;
    // A buffer grown for a large input (a frame of megabytes) is not kept.
    if (depth < CAMA_CRASH_NOTE_DEPTH && notes[depth].capacity > 64 * 1024) {
        free(notes[depth].buffer);
        notes[depth].buffer = NULL;
        notes[depth].capacity = 0;
    }
}

int cama_crash_note_depth(void) {
    return depth;
}

// Writing, with what a signal handler may use.

static void put(const void *bytes, size_t length) {
    const char *next = bytes;
    while (length > 0) {
        ssize_t written = write(note_fd, next, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        next += written;
        length -= (size_t)written;
    }
}

static void put_text(const char *text) {
    put(text, strlen(text));
}

static void put_number(uint64_t value) {
    char digits[24];
    int count = 0;
    do {
        digits[sizeof(digits) - 1 - count] = (char)('0' + value % 10);
        value /= 10;
        count += 1;
    } while (value > 0);
    put(digits + sizeof(digits) - count, (size_t)count);
}

static void put_hex(const uint8_t *bytes, size_t length) {
    static const char hex[] = "0123456789abcdef";
    char chunk[512];
    size_t used = 0;
    for (size_t index = 0; index < length; index++) {
        chunk[used++] = hex[bytes[index] >> 4];
        chunk[used++] = hex[bytes[index] & 15];
        if (used == sizeof(chunk)) {
            put(chunk, used);
            used = 0;
        }
    }
    put(chunk, used);
}

static const char *kind_name(int kind) {
    switch (kind) {
    case CAMA_CRASH_NOTE_ACTION: return "action";
    case CAMA_CRASH_NOTE_EFFECT: return "effect";
    default: return "frame";
    }
}

static void restore(int signal) {
    for (size_t index = 0; index < GUARDED_COUNT; index++) {
        if (guarded_signals[index] == signal) sigaction(signal, &previous[index], NULL);
    }
}

// With what a signal handler may use: write(2) and tcsetattr(3).
static void give_back_terminal(void) {
    if (!terminal_armed) return;
    terminal_armed = 0;
    const uint8_t *next = terminal_bytes;
    size_t length = terminal_length;
    while (length > 0) {
        ssize_t written = write(1, next, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) break;
        next += written;
        length -= (size_t)written;
    }
    tcsetattr(terminal_fd, TCSANOW, &terminal_settings);
}

static void on_crash(int signal, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    // A shell's terminal first, so that what follows (the runtime's backtrace) can be read.
    give_back_terminal();
    if (note_fd >= 0 && depth > 0) {
        const struct cama_crash_entry *entry = &notes[(depth <= CAMA_CRASH_NOTE_DEPTH ? depth : CAMA_CRASH_NOTE_DEPTH) - 1];
        // One line of JSON, read back by the next start (CrashNote.swift).
        put_text("{\"kind\":\"");
        put_text(kind_name(entry->kind));
        put_text("\",\"signal\":");
        put_number((uint64_t)signal);
        put_text(",\"client\":");
        if (entry->client_length > 0) put(entry->buffer, entry->client_length); else put_text("null");
        put_text(",\"seq\":");
        if (entry->has_seq) put_number(entry->seq); else put_text("null");
        put_text(",\"bytes\":\"");
        put_hex(entry->buffer + entry->client_length, entry->length);
        put_text("\"}\n");
        fsync(note_fd);
        // Once only: the note is written.
        note_fd = -1;
    }
    // Whoever handled this signal before (the Swift runtime's backtracer, or the default
    // action) takes it from here: a fault happens again when this handler returns; a signal
    // sent by someone is sent again, to be taken once this handler is done.
    restore(signal);
    if (info == NULL || info->si_code <= 0) raise(signal);
    errno = saved;
}

// Once per process, for the crash note and the terminal alike: a second installation would
// take this handler for the previous one.
static int install_handlers(void) {
    if (handlers_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < GUARDED_COUNT; index++) {
        if (sigaction(guarded_signals[index], &action, &previous[index]) != 0) return -1;
    }
    handlers_installed = 1;
    return 0;
}

int cama_crash_note_install(int fd) {
    note_fd = fd;
    return install_handlers();
}

static void give_back_terminal_at_exit(void) {
    give_back_terminal();
}

int cama_terminal_guard(int fd, const void *settings, size_t settings_size, const uint8_t *bytes, size_t length) {
    if (settings_size != sizeof(struct termios) || length > sizeof(terminal_bytes)) {
        errno = EINVAL;
        return -1;
    }
    terminal_armed = 0;
    memcpy(&terminal_settings, settings, settings_size);
    memcpy(terminal_bytes, bytes, length);
    terminal_length = length;
    terminal_fd = fd;
    if (!terminal_exit_hook) {
        if (atexit(give_back_terminal_at_exit) != 0) return -1;
        terminal_exit_hook = 1;
    }
    if (install_handlers() != 0) return -1;
    terminal_armed = 1;
    return 0;
}

void cama_terminal_unguard(void) {
    terminal_armed = 0;
}

int cama_crash_note_prepare_thread(void) {
    // A stack of its own for the handler, so that a stack overflow in the reducer (a fault on
    // the stack's guard page) can still be noted.
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return 0;
    size_t size = 64 * 1024;
    void *memory = malloc(size);
    if (memory == NULL) return -1;
    stack_t stack = { .ss_sp = memory, .ss_size = size, .ss_flags = 0 };
    return sigaltstack(&stack, NULL);
}
