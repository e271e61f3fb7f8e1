/* py3langid's feature walk in C (`pagesieve.models.page.language`, the `py3langid` detector).
 *
 * py3langid scores a text by walking its UTF-8 bytes through an automaton of byte n-grams and counting the
 * features the states it visits emit (`py3langid.langid.visit_counts`). That loop runs in Python, one step per
 * byte, over a 39 MB transition table: about 1.5 ms of a 1,000-character sample inside a pipeline that has pushed
 * the table out of the caches, more than BlockNet's network takes on the page. This is the same walk, step for step,
 * returning what `visit_counts` returns: a dict of feature -> count in the order the features were first seen (the
 * order py3langid's sparse scoring sums them in, so the scores are equal to the last bit), or None when the walk
 * emits no feature.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* counts per feature for the walk in progress, zero between calls: only the features a walk touched are reset */
static uint32_t *counts;
static Py_ssize_t counts_len;

static int take_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *name) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->itemsize != itemsize || view->len % itemsize) {
        PyErr_Format(PyExc_ValueError, "visit_counts: %s must hold %zd-byte items", name, itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *visit_counts(PyObject *module, PyObject *args) {
    PyObject *nextmove_obj, *rowbase_obj, *output_obj;
    Py_buffer nextmove, rowbase, output, text;
    Py_ssize_t n_features;
    if (!PyArg_ParseTuple(args, "OOOny*", &nextmove_obj, &rowbase_obj, &output_obj, &n_features, &text))
        return NULL;
    PyObject *result = NULL;
    int got = 0;
    if (take_buffer(nextmove_obj, &nextmove, 4, "nextmove") < 0) goto release;
    got = 1;
    if (take_buffer(rowbase_obj, &rowbase, 4, "rowbase") < 0) goto release;
    got = 2;
    if (take_buffer(output_obj, &output, 4, "output") < 0) goto release;
    got = 3;

    const uint32_t *nm = nextmove.buf, *row = rowbase.buf;
    const int32_t *out = output.buf;
    const unsigned char *bytes = text.buf;
    Py_ssize_t n_moves = nextmove.len / 4, n_states = rowbase.len / 4;
    if (output.len / 4 != n_states) {
        PyErr_SetString(PyExc_ValueError, "visit_counts: rowbase and output must have one entry per state");
        goto release;
    }
    if (n_features > counts_len) {
        uint32_t *grown = PyMem_Calloc((size_t)n_features, sizeof(uint32_t));
        if (grown == NULL) { PyErr_NoMemory(); goto release; }
        PyMem_Free(counts);
        counts = grown;
        counts_len = n_features;
    }
    int32_t *order = PyMem_Malloc((size_t)(text.len ? text.len : 1) * sizeof(int32_t));
    if (order == NULL) { PyErr_NoMemory(); goto release; }
    Py_ssize_t seen = 0;
    uint32_t state = 0;
    for (Py_ssize_t i = 0; i < text.len; i++) {
        uint64_t at = (uint64_t)row[state] + bytes[i];
        if (at >= (uint64_t)n_moves || nm[at] >= (uint64_t)n_states || out[nm[at]] >= n_features) {
            PyErr_SetString(PyExc_ValueError, "visit_counts: the automaton leaves its tables (a damaged model)");
            for (Py_ssize_t k = 0; k < seen; k++) counts[order[k]] = 0;
            PyMem_Free(order);
            goto release;
        }
        state = nm[at];
        int32_t f = out[state];
        if (f >= 0 && counts[f]++ == 0) order[seen++] = f;
    }
    if (seen == 0) {
        result = Py_NewRef(Py_None);
    } else {
        result = PyDict_New();
        for (Py_ssize_t k = 0; k < seen && result != NULL; k++) {
            PyObject *key = PyLong_FromLong(order[k]), *value = PyLong_FromUnsignedLong(counts[order[k]]);
            if (key == NULL || value == NULL || PyDict_SetItem(result, key, value) < 0) Py_CLEAR(result);
            Py_XDECREF(key);
            Py_XDECREF(value);
        }
    }
    for (Py_ssize_t k = 0; k < seen; k++) counts[order[k]] = 0;
    PyMem_Free(order);
release:
    if (got >= 3) PyBuffer_Release(&output);
    if (got >= 2) PyBuffer_Release(&rowbase);
    if (got >= 1) PyBuffer_Release(&nextmove);
    PyBuffer_Release(&text);
    return result;
}

static PyMethodDef methods[] = {
    {"visit_counts", visit_counts, METH_VARARGS,
     "visit_counts(nextmove, rowbase, output, n_features, text): py3langid's visit_counts over the UTF-8 bytes "
     "`text`, the tables as 4-byte buffers (uint32, uint32, int32), features below n_features: {feature: count} in "
     "first-seen order, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_clangid", NULL, -1, methods};

PyMODINIT_FUNC PyInit__clangid(void) { return PyModule_Create(&module); }
