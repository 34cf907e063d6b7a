#define _GNU_SOURCE
#include <malloc.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <spawn.h>
#include <errno.h>
#include <unistd.h>
#include "CSystemShims.h"

pid_t cama_thread_id(void) {
    return gettid();
}

int cama_schedule_as_batch(void) {
    struct sched_param param = { .sched_priority = 0 };
    // pid 0: the calling thread alone (Linux schedules threads, not processes).
    return sched_setscheduler(0, SCHED_BATCH, &param);
}

int cama_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
        return -1;
    }
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int cama_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}

int cama_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

void cama_set_thread_name(const char *name) {
    char truncated[16];
    size_t index = 0;
    for (; name[index] != 0 && index < 15; index++) {
        truncated[index] = name[index];
    }
    truncated[index] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

int cama_set_mmap_threshold(int threshold) {
    return mallopt(M_MMAP_THRESHOLD, threshold);
}

int cama_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)lowest;
    return ENOSYS;
#endif
}
