/* fuzz_cli.c - the command line, run in-process: the input is an argument list, one argument per
 * line, given to dfscope's main() against two small fixed traces in a private working directory;
 * stdout goes to /dev/null (run with -close_fd_mask=2 to silence stderr too).
 *
 * The CLI never calls exit() (every command returns its code up to main), so a run returns here.
 * What the harness changes, and why:
 *  - arguments containing '/' or ".." are dropped, so that every path (inputs, -o outputs, --preset
 *    files, globs) stays inside the working directory; "@" stands for the trace a.pfw, which is
 *    also always appended as the last argument;
 *  - `gen` is not run (it writes as many bytes as asked; its options are plain numbers), only
 *    `help gen` / `gen --help` are;
 *  - the working directory is emptied and the traces rewritten after each run (outputs may
 *    replace them: -o b.json is legal when b.json is not an input);
 *  - getopt's hidden state is reset before each run: the commands set optind = 1, which is enough
 *    in a process that parses once, but glibc keeps a pointer into the previous argv when a run
 *    stopped inside a group of short options ("-vx" with x unknown).
 * The exit code must be one of the documented ones (0 to 4). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dfs_fuzz_cli_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define MAX_ARGS 24
#define MAX_ARG_LEN 200

static const char trace_pfw[] =
    "[\n"
    "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":7,\"tid\":7,\"ph\":\"M\","
    "\"args\":{\"name\":\"node1\",\"value\":11}}\n"
    "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":7,\"tid\":7,\"ph\":\"M\","
    "\"args\":{\"name\":\"/data/f1\",\"value\":22}}\n"
    "{\"id\":3,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":1000000,\"dur\":50,"
    "\"ph\":\"X\",\"args\":{\"hhash\":11,\"fhash\":22,\"ret\":4096,\"size\":4096}}\n"
    "{\"id\":4,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":8,\"ts\":1000100,"
    "\"dur\":30,\"ph\":\"X\",\"args\":{\"hhash\":11,\"fhash\":22,\"ret\":3}}\n"
    "{\"id\":5,\"name\":\"compute\",\"cat\":\"ai_framework\",\"pid\":7,\"tid\":7,"
    "\"ts\":1000200,\"dur\":1000,\"ph\":\"X\",\"args\":{\"epoch\":1,\"step\":2}}\n"
    "{\"id\":6,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":1000300,\"dur\":-5,"
    "\"ph\":\"X\",\"args\":{\"hhash\":11,\"fhash\":99}}\n"
    "{\"id\":7,\"name\":\n"
    "]\n";

static const char trace_json[] =
    "{\"traceEvents\":[\n"
    "{\"name\":\"step\",\"cat\":\"cpu_op\",\"ph\":\"X\",\"ts\":10,\"dur\":5,\"pid\":1,\"tid\":2},\n"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"python\"}},\n"
    "{\"name\":\"loader\",\"cat\":\"dataloader\",\"ph\":\"B\",\"ts\":20,\"pid\":1,\"tid\":2},\n"
    "{\"name\":\"loader\",\"cat\":\"dataloader\",\"ph\":\"E\",\"ts\":30,\"pid\":1,\"tid\":2}\n"
    "],\"baseTimeNanoseconds\":1700000000000000000}\n";

static char workdir[256];

static void die(const char *what)
{
    fprintf(stderr, "fuzz_cli: %s: %s\n", what, strerror(errno));
    abort();
}

static void write_file(const char *name, const char *text)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0)
        die("cannot write a trace");
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    if (ftw->level > 0 && remove(path) != 0)
        die("cannot clean the working directory");
    return 0;
}

static void reset_workdir(void)
{
    if (chdir(workdir) != 0)
        die("cannot enter the working directory");
    if (nftw(".", remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        die("cannot walk the working directory");
    write_file("a.pfw", trace_pfw);
    write_file("b.json", trace_json);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Two empty levels above the working directory: ".." (kept out anyway) could only reach them. */
    char base[] = "/tmp/dfscope-fuzz-cli-XXXXXX";
    if (!mkdtemp(base))
        die("mkdtemp");
    snprintf(workdir, sizeof workdir, "%s/up", base);
    if (mkdir(workdir, 0755) != 0)
        die("mkdir");
    snprintf(workdir, sizeof workdir, "%s/up/work", base);
    if (mkdir(workdir, 0755) != 0)
        die("mkdir");
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        die("cannot redirect to /dev/null");
    close(null);
    reset_workdir();
    return 0;
}

static void reset_getopt(void)
{
    char prog[] = "fuzz", *args[] = {prog, NULL};
    optind = 0; /* glibc: optind 0 re-initialises everything, the stale pointer included */
    (void)getopt(1, args, "");
    optind = 1;
}

/* Splits the input into arguments; returns how many, or -1 when the input is not run. */
static int split_args(const uint8_t *data, size_t len, char *store, char **argv)
{
    int argc = 0;
    argv[argc++] = "dfscope";
    size_t at = 0;
    for (size_t i = 0; i <= len && argc < MAX_ARGS; ) {
        size_t j = i;
        while (j < len && data[j] != '\n' && data[j] != '\0')
            j++;
        size_t n = j - i < MAX_ARG_LEN ? j - i : MAX_ARG_LEN;
        char *arg = store + at;
        memcpy(arg, data + i, n);
        arg[n] = '\0';
        i = j + 1;
        if (strchr(arg, '/') || strstr(arg, ".."))
            continue; /* its bytes are overwritten by the next argument */
        at += n + 1;
        argv[argc++] = strcmp(arg, "@") == 0 ? "a.pfw" : arg;
    }
    if (argc > 1 && strcmp(argv[1], "gen") == 0) {
        bool help = false;
        for (int k = 2; k < argc; k++)
            help |= strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0;
        if (!help)
            return -1;
    }
    argv[argc++] = "a.pfw";
    argv[argc] = NULL;
    return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len > 4096)
        return 0;
    char *store = malloc((MAX_ARG_LEN + 1) * (MAX_ARGS + 1));
    char *argv[MAX_ARGS + 2];
    if (!store)
        die("out of memory");
    int argc = split_args(data, len, store, argv);
    if (argc > 0) {
        reset_getopt();
        int rc = dfs_fuzz_cli_main(argc, argv);
        fflush(stdout);
        if (rc < 0 || rc > 4) {
            fprintf(stderr, "fuzz_cli: exit code %d is not documented\n", rc);
            abort();
        }
        reset_workdir();
    }
    free(store);
    return 0;
}
