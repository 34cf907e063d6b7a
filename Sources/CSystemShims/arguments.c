// The command line for the Swift runtime, kept from the arguments glibc hands every constructor.
//
// A Swift runtime linked into the executable finds argv, as the process starts, by reading
// /proc/self/maps a line at a time with sscanf to find its stack, then walking back from
// `environ` (ArgvGrabber, in the runtime's CommandLine.cpp): some 93,000 instructions and the
// kernel's text of every mapping, a sixth of all a one-shot `shell-client send` runs
// (callgrind). glibc calls each function of .init_array with (argc, argv, envp), so this file
// keeps them and defines the two functions of that part of the runtime; the static link then
// has no reason to take the runtime's own, and its grabber never runs. Where the runtime is a
// shared library, it keeps its own and this one is not called, or, if it is, says the same.
#include <stdlib.h>  // defines __GLIBC__ where the C library is glibc

#if defined(__linux__) && defined(__GLIBC__)

static char **cama_argv;
static int cama_argc;
// What `_swift_stdlib_overrideUnsafeArgvArgc` set (a REPL or a JIT), which takes precedence.
static char **cama_override_argv;
static int cama_override_argc;

__attribute__((constructor)) static void cama_keep_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    cama_argc = argc;
    cama_argv = argv;
}

// The runtime's entry points, with its calling convention: `CommandLine.arguments` and
// `CommandLine.unsafeArgv` read the first.
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (cama_override_argv) {
        *outArgLen = cama_override_argc;
        return cama_override_argv;
    }
    *outArgLen = cama_argc;
    return cama_argv;
}

__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    cama_override_argv = argv;
    cama_override_argc = argc;
}

#endif
