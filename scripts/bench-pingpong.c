// The floor for one client's round trip: two processes passing 32 bytes back and forth over a
// Unix socketpair, with blocking reads and writes and nothing else. scripts/bench.sh compiles
// it and prints its median round trip beside cama-bench's.
//
// Usage: bench-pingpong [ROUND_TRIPS]   prints round_trips_per_second=R p50_us=P
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double microseconds(struct timespec from, struct timespec to) {
    return (double)(to.tv_sec - from.tv_sec) * 1e6 + (double)(to.tv_nsec - from.tv_nsec) / 1e3;
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 20000;
    if (count < 1) count = 1;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) { perror("socketpair"); return 1; }
    char buffer[64] = {0};
    pid_t echo = fork();
    if (echo < 0) { perror("fork"); return 1; }
    if (echo == 0) {
        close(pair[0]);
        for (;;) {
            ssize_t got = read(pair[1], buffer, sizeof buffer);
            if (got <= 0) _exit(0);
            if (write(pair[1], buffer, (size_t)got) != got) _exit(1);
        }
    }
    close(pair[1]);
    double *trips = malloc(sizeof(double) * (size_t)count);
    if (!trips) return 1;
    struct timespec start, end, before, after;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < count; i++) {
        clock_gettime(CLOCK_MONOTONIC, &before);
        if (write(pair[0], buffer, 32) != 32) { perror("write"); return 1; }
        ssize_t have = 0;
        while (have < 32) {
            ssize_t got = read(pair[0], buffer + have, (size_t)(32 - have));
            if (got <= 0) { perror("read"); return 1; }
            have += got;
        }
        clock_gettime(CLOCK_MONOTONIC, &after);
        trips[i] = microseconds(before, after);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    close(pair[0]);
    waitpid(echo, NULL, 0);
    qsort(trips, (size_t)count, sizeof(double), ascending);
    printf("round_trips_per_second=%.0f p50_us=%.0f\n", count / (microseconds(start, end) / 1e6), trips[count / 2]);
    free(trips);
    return 0;
}
