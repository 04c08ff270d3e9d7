/* module.c - dfscope._native, the CPython extension under the dfscope package (docs/PYTHON.md).
 *
 * Three entries, each a thin layer over the library:
 *   run_command(argv)  a dfscope command in-process (cli/capture.h): (exit code, stdout, stderr);
 *   read_events(...)   the events' columns (evcols.h), as buffers numpy adopts without a copy;
 *   missing_inputs(paths)  why each missing input is missing, in the CLI's words.
 *
 * Invariants: the work runs on a thread of its own while the calling thread waits without the
 * GIL, waking every 50 ms to let Python run its signal handlers (PyErr_CheckSignals); when one
 * raises (KeyboardInterrupt), the work is asked to stop (dfs_options.cancelled), waited for, and
 * its results freed before the exception propagates, so an interrupted call leaves nothing
 * running and nothing allocated. The only state outside a call is the lock that serialises
 * commands: getopt keeps its parsing state in process-wide variables. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/evcols/evcols.h"
#include "cli/capture.h"
#include "cli/common.h"
#include "dfscope.h"
#include "read/run.h"

/* ---- a buffer numpy adopts: malloc'd memory freed with the last array that views it ---- */

typedef struct owned {
    PyObject_HEAD
    void *data;
    Py_ssize_t len;
} owned;

static int owned_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    owned *o = (owned *)self;
    return PyBuffer_FillInfo(view, self, o->data, o->len, 0, flags);
}

static void owned_dealloc(PyObject *self)
{
    free(((owned *)self)->data);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs owned_as_buffer = {.bf_getbuffer = owned_getbuffer};

static PyTypeObject owned_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dfscope._native.Owned",
    .tp_basicsize = sizeof(owned),
    .tp_dealloc = owned_dealloc,
    .tp_as_buffer = &owned_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory filled by libdfscope, freed with the last object that views it.",
};

/* Takes *data (sets it to NULL): freed when the object goes, also when it cannot be made. */
static PyObject *adopt(void **data, size_t len)
{
    owned *o = PyObject_New(owned, &owned_type);
    if (!o) {
        free(*data);
        *data = NULL;
        return NULL;
    }
    o->data = *data;
    o->len = (Py_ssize_t)len;
    *data = NULL;
    return (PyObject *)o;
}

/* ---- work on a thread of its own, interruptible ---- */

typedef struct job {
    void (*work)(struct job *);
    atomic_int cancel;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
} job;

static bool job_cancelled(void *ctx)
{
    return atomic_load(&((job *)ctx)->cancel) != 0;
}

static void *job_main(void *arg)
{
    job *j = arg;
    j->work(j);
    pthread_mutex_lock(&j->lock);
    j->done = true;
    pthread_cond_signal(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* Wakes at most every 50 ms, without the GIL; true once the work is done. */
static bool wait_a_little(job *j)
{
    bool done;
    Py_BEGIN_ALLOW_THREADS
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&j->lock);
    if (!j->done)
        pthread_cond_timedwait(&j->cond, &j->lock, &ts);
    done = j->done;
    pthread_mutex_unlock(&j->lock);
    Py_END_ALLOW_THREADS
    return done;
}

/* Runs j->work; 0 when it ran to the end, -1 with the exception set when a signal handler raised
 * (the work was then cancelled and has ended). */
static int run_job(job *j)
{
    atomic_init(&j->cancel, 0);
    j->done = false;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    pthread_t t;
    int rc = 0;
    if (pthread_create(&t, NULL, job_main, j) != 0) {
        Py_BEGIN_ALLOW_THREADS
        j->work(j);
        Py_END_ALLOW_THREADS
    } else {
        while (!wait_a_little(j))
            if (rc == 0 && PyErr_CheckSignals() < 0) {
                atomic_store(&j->cancel, 1);
                rc = -1;
            }
        Py_BEGIN_ALLOW_THREADS
        pthread_join(t, NULL);
        Py_END_ALLOW_THREADS
    }
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cond);
    return rc;
}

/* ---- arguments ---- */

/* A list of str as a NULL-terminated char * array (UTF-8 kept alive by the list's items). */
static const char **string_list(PyObject *list, size_t *n, const char *what)
{
    PyObject *seq = PySequence_Fast(list, what);
    if (!seq)
        return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    const char **v = calloc((size_t)len + 1, sizeof *v);
    if (!v) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        v[i] = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!v[i]) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s: expected str items", what);
            free(v);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq); /* the items stay alive in the caller's list */
    *n = (size_t)len;
    return v;
}

/* ---- run_command ---- */

static pthread_mutex_t command_lock = PTHREAD_MUTEX_INITIALIZER; /* getopt's state is the process' */

typedef struct command_job {
    job j;
    int argc;
    char **argv;
    dfs_cli_capture cap;
    int rc;
} command_job;

static void command_work(job *j)
{
    command_job *c = (command_job *)j;
    c->cap.cancelled = job_cancelled;
    c->cap.cancel_ctx = j;
    pthread_mutex_lock(&command_lock);
    c->rc = dfs_cli_capture_run(c->argc, c->argv, &c->cap);
    pthread_mutex_unlock(&command_lock);
}

/* The one argument of an entry, a list of str (string_list); format is "O:NAME". */
static const char **list_argument(PyObject *args, const char *format, size_t *n)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, format, &list))
        return NULL;
    return string_list(list, n, format + 2);
}

static PyObject *py_run_command(PyObject *self, PyObject *args)
{
    (void)self;
    size_t n = 0;
    const char **argv = list_argument(args, "O:run_command", &n);
    if (!argv)
        return NULL;
    command_job c = {.j.work = command_work, .argc = (int)n, .argv = (char **)argv};
    int interrupted = run_job(&c.j);
    free(argv);
    if (interrupted) {
        dfs_cli_capture_free(&c.cap);
        return NULL;
    }
    if (!c.cap.out) {
        PyErr_SetString(PyExc_MemoryError, "dfscope: out of memory capturing a command's output");
        return NULL;
    }
    /* the diagnostics quote the inputs, which need not be UTF-8 */
    PyObject *err = PyUnicode_DecodeUTF8(c.cap.err, (Py_ssize_t)c.cap.err_len, "replace");
    PyObject *r = err ? Py_BuildValue("(iy#N)", c.rc, c.cap.out, (Py_ssize_t)c.cap.out_len, err) : NULL;
    dfs_cli_capture_free(&c.cap);
    return r;
}

/* ---- missing_inputs ---- */

static PyObject *py_missing_inputs(PyObject *self, PyObject *args)
{
    (void)self;
    size_t n = 0;
    const char **paths = list_argument(args, "O:missing_inputs", &n);
    if (!paths)
        return NULL;
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < n; i++) {
        char why[600];
        if (dfs_inputs_exist(paths[i], why, sizeof why))
            continue;
        PyObject *s = PyUnicode_DecodeUTF8(why, (Py_ssize_t)strlen(why), "replace");
        if (!s || PyList_Append(out, s) < 0)
            Py_CLEAR(out);
        Py_XDECREF(s);
    }
    free(paths);
    return out;
}

/* ---- read_events ---- */

typedef struct events_job {
    job j;
    const char **paths;
    size_t npaths;
    dfs_options opt;
    dfs_evcols *ec;
    dfs_run *run;
    int verdict;
    bool input_error, failed;
    char err[1024];
} events_job;

/* The inputs that could not be read, "PATH: WHY; ..." in e->err, as the CLI's exit code 2 says. */
static bool unreadable_inputs(events_job *e)
{
    size_t at = 0;
    for (size_t i = 0; i < dfs_run_file_count(e->run); i++) {
        const dfs_file_info *f = dfs_run_file(e->run, i);
        if (f->unreadable && at < sizeof e->err)
            at += (size_t)snprintf(e->err + at, sizeof e->err - at, "%s%s: %s", at ? "; " : "", f->path,
                                   f->error ? f->error : "cannot be read");
    }
    return at > 0;
}

static void events_work(job *j)
{
    events_job *e = (events_job *)j;
    e->opt.cancelled = job_cancelled;
    e->opt.cancel_ctx = j;
    e->run = dfs_run_new(&e->opt);
    if (!e->run) {
        e->failed = true;
        snprintf(e->err, sizeof e->err, "out of memory");
        return;
    }
    for (size_t i = 0; i < e->npaths; i++)
        if (dfs_run_add_path(e->run, e->paths[i]) != DFS_OK) {
            e->input_error = true;
            snprintf(e->err, sizeof e->err, "%s", dfs_run_error(e->run));
            return;
        }
    dfs_consumer *c = dfs_evcols_consumer(e->ec);
    e->verdict = dfs_run_read(e->run, &c, 1);
    if (job_cancelled(j))
        return;
    if (unreadable_inputs(e))
        e->input_error = true;
    else if (!dfs_evcols_finish(e->ec, e->run, e->err, sizeof e->err))
        e->failed = true;
}

static PyObject *text_list(const dfs_ec_column *col)
{
    PyObject *list = PyList_New((Py_ssize_t)col->ncats);
    for (size_t i = 0; list && i < col->ncats; i++) {
        PyObject *s = PyUnicode_DecodeUTF8(col->cat_text[i], (Py_ssize_t)col->cat_len[i], "replace");
        if (!s) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static const char *const type_names[] = {"int64", "uint64", "float64", "category"};

/* (name, type, values, missing or None, categories or None) for each column. */
static PyObject *columns_of(dfs_evcols *ec)
{
    size_t rows = dfs_evcols_rows(ec), n = dfs_evcols_ncolumns(ec);
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        dfs_ec_column *col = dfs_evcols_column(ec, i);
        size_t width = col->type == DFS_EC_CATEGORY ? 4 : 8;
        PyObject *values = adopt(&col->values, rows * width);
        PyObject *missing = col->missing ? adopt((void **)&col->missing, rows) : Py_NewRef(Py_None);
        PyObject *cats = col->type == DFS_EC_CATEGORY ? text_list(col) : Py_NewRef(Py_None);
        PyObject *t = values && missing && cats
                          ? Py_BuildValue("(ssOOO)", col->name, type_names[col->type], values, missing, cats)
                          : NULL;
        Py_XDECREF(values);
        Py_XDECREF(missing);
        Py_XDECREF(cats);
        if (!t) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    return out;
}

static PyObject *error_class(const char *name)
{
    PyObject *mod = PyImport_ImportModule("dfscope._errors");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, name) : NULL;
    Py_XDECREF(mod);
    return cls;
}

/* Raises dfscope.<cls>(message, exit_code). */
static PyObject *raise_error(const char *cls_name, const char *message, int code)
{
    PyObject *cls = error_class(cls_name);
    if (!cls)
        return NULL;
    PyObject *exc = PyObject_CallFunction(cls, "si", message, code);
    Py_DECREF(cls);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* A read of events is cut in pieces of at most this much unless told otherwise: Ctrl-C is answered
 * between pieces (the answer does not depend on the pieces). */
#define EVENTS_CHUNK (UINT64_C(64) << 20)

/* A size as the CLI takes it (--chunk, --max-record: 512, 64k, 32M), or NULL for `dflt`. */
static bool size_arg(const char *s, const char *what, uint64_t dflt, uint64_t *out)
{
    if (!s) {
        *out = dflt;
        return true;
    }
    if (dfs_cli_parse_size(s, out))
        return true;
    char msg[160];
    snprintf(msg, sizeof msg, "events: %s takes a size (512, 64k, 32M), not '%.40s'", what, s);
    raise_error("UsageError", msg, DFS_EXIT_USAGE);
    return false;
}

static PyObject *py_read_events(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *names[] = {"paths", "columns", "where", "limit", "jobs", "dedup", "chunk", "max_record", NULL};
    PyObject *plist, *clist;
    const char *where = NULL, *chunk_text = NULL, *max_record_text = NULL;
    unsigned long long limit = 0;
    int jobs = 0, dedup = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|zKipzz:read_events", names, &plist, &clist, &where, &limit,
                                     &jobs, &dedup, &chunk_text, &max_record_text))
        return NULL;
    uint64_t chunk, max_record;
    if (!size_arg(chunk_text, "chunk", EVENTS_CHUNK, &chunk))
        return NULL;
    dfs_options defaults;
    dfs_options_init(&defaults);
    if (!size_arg(max_record_text, "max_record", defaults.max_record, &max_record))
        return NULL;
    events_job e = {.j.work = events_work};
    size_t ncols = 0;
    const char **cols = string_list(clist, &ncols, "read_events: columns");
    if (!cols)
        return NULL;
    e.paths = string_list(plist, &e.npaths, "read_events: paths");
    if (!e.paths) {
        free(cols);
        return NULL;
    }
    char err[1024];
    e.ec = dfs_evcols_new(cols, ncols, where, limit, err, sizeof err);
    free(cols);
    if (!e.ec) {
        free(e.paths);
        return raise_error("UsageError", err, DFS_EXIT_USAGE);
    }
    dfs_options_init(&e.opt);
    e.opt.jobs = jobs;
    e.opt.dedup = dedup != 0;
    e.opt.chunk_bytes = chunk;
    e.opt.max_record = max_record;
    PyObject *result = NULL;
    if (run_job(&e.j) == 0) {
        if (e.input_error)
            raise_error("InputError", e.err, DFS_EXIT_USAGE);
        else if (e.failed)
            raise_error("Error", e.err, DFS_EXIT_OUTPUT);
        else {
            PyObject *columns = columns_of(e.ec);
            if (columns)
                result = Py_BuildValue("{s:n,s:i,s:N}", "rows", (Py_ssize_t)dfs_evcols_rows(e.ec), "exit_code",
                                       e.verdict, "columns", columns);
        }
    }
    dfs_evcols_free(e.ec);
    dfs_run_free(e.run);
    free(e.paths);
    return result;
}

/* ---- the module ---- */

static PyMethodDef methods[] = {
    {"run_command", py_run_command, METH_VARARGS,
     "run_command(argv) -> (exit_code, stdout: bytes, stderr: str): runs `dfscope argv[1:]` in-process."},
    {"read_events", (PyCFunction)(void (*)(void))py_read_events, METH_VARARGS | METH_KEYWORDS,
     "read_events(paths, columns, where=None, limit=0, jobs=0, dedup=False, chunk=None, max_record=None) -> "
     "dict of "
     "rows, exit_code and columns (name, type, values, missing, categories)."},
    {"missing_inputs", py_missing_inputs, METH_VARARGS,
     "missing_inputs(paths) -> list of messages, one per path that names nothing."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "dfscope._native",
    .m_doc = "libdfscope for the dfscope package (docs/PYTHON.md).", .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&owned_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "version", DFS_VERSION_STRING) < 0)
        Py_CLEAR(m);
    return m;
}
