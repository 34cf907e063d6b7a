// Linux system interfaces that Swift's Glibc module does not export: epoll, eventfd, signalfd and a few
// calls that need _GNU_SOURCE or are variadic. Kept as small as possible; everything else is
// written in Swift against Glibc.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <spawn.h>

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

/// Names the calling thread (at most 15 bytes are kept), for ps and debuggers.
void cama_set_thread_name(const char *name);

/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up
/// (glibc 2.34 and later); returns 0, or ENOSYS where the C library cannot.
int cama_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

