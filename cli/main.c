/* main.c - `ringsim COMMAND [options]`: dispatch to the subcommands (cli/cmd_*.c). */
#include <stdbool.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli.h"
#include "exec_launch.h"
#include "output.h"

/* The end of a command: stdout checked (a full disk, a closed pipe: exit 1, its outputs removed),
 * then every output committed together, or removed when the command failed. Returns the exit code. */
/* stdout's write error (an errno), or 0. An output larger than the stream's buffer failed in an
 * earlier write, whose errno is gone: one more byte written says why (the output is lost anyway). */
static int stdout_error(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    if (errno == 0) {
        clearerr(stdout);
        if (fputc('\n', stdout) != EOF) fflush(stdout);
    }
    return errno ? errno : EIO;
}

static int finish(const char *name, int rc) {
    rs_err_t err = {0};
    const int e = stdout_error();
    if (e) {
        rs_errf(&err, "stdout: write error: %s", strerror(e));
        rc = RS_EXIT_FAIL;
    } else if (rs_out_finish(rc == RS_EXIT_OK, &err) != 0) {
        rc = RS_EXIT_FAIL;
    }
    rs_out_finish(false, NULL); /* after a failure above: nothing of this run stays */
    if (rc == RS_EXIT_OK && !err.msg[0]) rs_cli_notes_print(); /* the notes, then the command's last line */
    errno = 0;
    if (fclose(stdout) != 0 && !err.msg[0]) {
        rs_errf(&err, "stdout: write error: %s", strerror(errno ? errno : EIO));
        rc = RS_EXIT_FAIL;
    }
    if (err.msg[0]) fprintf(stderr, "ringsim %s: %s\n", name, err.msg);
    return rc;
}

static void usage(FILE *out) {
    fprintf(out, "usage: ringsim COMMAND [options]   (ringsim COMMAND --help for its options)\n\n");
    for (const rs_command_t *c = rs_commands; c->name; c++) fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\nringsim %s: %s.\n", RINGSIM_VERSION, rs_cli_about);
}

/* Hidden (build time, cli/CMakeLists.txt): `--man-dir DIR` writes the man pages, `--completion
 * bash|zsh [FILE]` the completion script (stdout without FILE), from the option and command tables. */
static int docs(int argc, char **argv) {
    rs_err_t err = {0};
    const bool man = !strcmp(argv[1], "--man-dir");
    if (argc != 3 && (man || argc != 4)) {
        fprintf(stderr, "ringsim: usage: ringsim --man-dir DIR | ringsim --completion bash|zsh [FILE]\n");
        return RS_EXIT_USAGE;
    }
    int rc;
    if (man) {
        rc = rs_cli_write_man(argv[2], &err);
    } else if (argc == 3) {
        rc = rs_cli_write_completion(stdout, argv[2], &err);
    } else {
        rs_file_t f;
        rc = rs_file_open(&f, argv[3], &err);
        if (rc == 0 && (rc = rs_cli_write_completion(f.fp, argv[2], &err)) != 0) rs_file_abort(&f);
        else if (rc == 0) rc = rs_file_commit(&f, &err);
    }
    if (rc == 0) return RS_EXIT_OK;
    fprintf(stderr, "ringsim: %s\n", err.msg);
    return RS_EXIT_FAIL;
}

/* Commands that divide their work over a launcher's ranks (mpirun, srun), and --help anywhere. */
static bool uses_launcher(const char *name, int argc, char **argv) {
    static const char *const ranked[] = {"exec", "calibrate", "validate", "sweep"};
    for (size_t i = 0; i < sizeof ranked / sizeof ranked[0]; i++)
        if (!strcmp(name, ranked[i])) return true;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

int main(int argc, char **argv) {
    /* A file-size limit (ulimit -f) or a full disk: the write fails with EFBIG/ENOSPC, which the
     * writers report with the file's name and clean up after, instead of killing the process (and
     * leaving its temporaries and its children behind). Children inherit it: mpirun, its ranks and
     * gnuplot see EFBIG too (subprocess.c). */
    signal(SIGXFSZ, SIG_IGN);
    /* A rank started by a launcher (mpirun, srun) dies with its launcher's process: a killed job leaves no
     * rank running on, writing into the dead run's folders (a child ringsim starts is tied likewise,
     * subprocess.h). */
    if (rs_exec_env_rank() >= 0) {
        const pid_t launcher = getppid();
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != launcher) return RS_EXIT_FAIL; /* it died already */
    }
    if (argc < 2) {
        usage(stderr);
        return RS_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return RS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--man-dir") || !strcmp(argv[1], "--completion")) return docs(argc, argv);
    if (!strcmp(argv[1], "--version")) {
        printf("ringsim %s\n", RINGSIM_VERSION);
        return RS_EXIT_OK;
    }
    const rs_command_t *c = rs_cli_command(argv[1]);
    if (c && c->run && rs_exec_env_size() > 1 && !uses_launcher(c->name, argc, argv)) {
        /* every rank would repeat the whole command and race for its outputs; rank 0 says so */
        if (rs_exec_env_rank() <= 0)
            fprintf(stderr, "ringsim %s: started by a launcher (%d processes): %s runs as one process and every rank would repeat it; "
                        "run it without mpirun/srun (exec, calibrate, validate and sweep divide their work over a launcher's ranks)\n",
                c->name, rs_exec_env_size(), c->name);
        return RS_EXIT_USAGE;
    }
    if (c && c->run) {
        rs_out_begin();
        return finish(c->name, c->run(argc - 1, argv + 1));
    }
    if (c) {
        fprintf(stderr, "ringsim %s: %s\n", c->name, c->missing);
        return RS_EXIT_FAIL;
    }
    char esc[256];
    fprintf(stderr, "ringsim: unknown command '%s' (expected one of:", rs_escape(argv[1], esc, sizeof esc));
    for (c = rs_commands; c->name; c++) fprintf(stderr, " %s", c->name);
    fprintf(stderr, ")\n");
    return RS_EXIT_USAGE;
}
