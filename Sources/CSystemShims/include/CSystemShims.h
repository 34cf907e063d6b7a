// Linux system interfaces that Swift's Glibc module does not export: epoll, eventfd, signalfd and a few
// calls that need _GNU_SOURCE or are variadic, and the crash note and a shell's terminal given back
// on a crash (a signal handler must be C); and CRC-32C by the CPU's crc32 instruction (crc32c.c),
// which Swift cannot reach without compiler intrinsics.
// Kept as small as possible; everything else is written in Swift against Glibc.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>

/// The credentials of the process at the other end of a connected Unix socket (SO_PEERCRED).
/// Returns 0 on success, -1 with errno set on failure.
int cama_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Asks the kernel to send `signal` to this process when its parent thread exits
/// (prctl PR_SET_PDEATHSIG). Returns 0 on success, -1 with errno set.
int cama_set_parent_death_signal(int signal);

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC, ignoring the peer address.
int cama_accept_nonblocking(int fd);

/// Makes glibc's malloc serve every allocation of `threshold` bytes or more with its own
/// mmap, returned to the system when freed. Setting it also stops glibc from raising the
/// threshold after large frees, which would otherwise keep large transient buffers (frames,
/// their decoded text) in the heap long after use. Returns 1 on success.
int cama_set_mmap_threshold(int threshold);

/// The calling thread's id (gettid(2)), for calls that take one (setpriority).
pid_t cama_thread_id(void);

/// Schedules the calling thread as batch work (SCHED_BATCH, at the same share of the CPU as any
/// other thread): waking, it never preempts a running thread, but waits for the CPU to be free
/// or for the running thread's turn to end. Returns 0, or -1 with errno set.
int cama_schedule_as_batch(void);

/// Names the calling thread (at most 15 bytes are kept), for ps and debuggers.
void cama_set_thread_name(const char *name);

/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up
/// (glibc 2.34 and later); returns 0, or ENOSYS where the C library cannot.
int cama_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Whether this CPU computes CRC-32C itself (SSE 4.2 on x86-64): 1 if so, else 0, and then
/// cama_crc32c_update must not be called.
int cama_crc32c_available(void);

/// CRC-32C of `count` bytes continued from `crc`, by the CPU's instruction: the running value,
/// without the final inversion (start from 0xFFFFFFFF and invert the result for the checksum).
uint32_t cama_crc32c_update(uint32_t crc, const void *bytes, size_t count);


/// What a crash note is about: a client's action (its JSON), an effect's or the core's own
/// action (its JSON), or a whole frame read the general way (its bytes).
#define CAMA_CRASH_NOTE_ACTION 1
#define CAMA_CRASH_NOTE_EFFECT 2
#define CAMA_CRASH_NOTE_FRAME 3

/// Notes, for the calling thread, what it is about to apply: a client's id (as JSON text,
/// empty for none), its sequence number (when `has_seq`), and the bytes of the action or frame,
/// copied. Notes nest (an effect's action applied while a client's is): a crash blames the
/// innermost.
void cama_crash_note_push(int kind, const uint8_t *client, size_t client_length, uint64_t seq, int has_seq, const uint8_t *bytes, size_t length);

/// Ends the innermost note of the calling thread.
void cama_crash_note_pop(void);

/// How many notes the calling thread has open.
int cama_crash_note_depth(void);

/// Handles SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV and SIGBUS: if the thread that crashed
/// has a note open, it is written to `fd` as one line of JSON and synced, then the signal goes
/// on to whoever handled it before. Returns 0, or -1 with errno set.
int cama_crash_note_install(int fd);

/// Guards a terminal the process has taken over (raw mode, the alternate screen): if the process
/// ends by a crash signal (the handler of cama_crash_note_install, installed here if it is not
/// yet) or by exit() before cama_terminal_unguard, `bytes` are written to stdout and `settings`
/// (a struct termios, `settings_size` bytes) are set again on `fd`. One terminal at a time; a
/// new guard replaces the last. Returns 0, or -1 with errno set (EINVAL: more than 128 bytes).
int cama_terminal_guard(int fd, const void *settings, size_t settings_size, const uint8_t *bytes, size_t length);

/// The terminal is given back: nothing to do for it on a crash or at exit any more.
void cama_terminal_unguard(void);

/// Gives the calling thread a signal stack of its own, so that a stack overflow can be noted.
/// Returns 0, or -1 with errno set.
int cama_crash_note_prepare_thread(void);
