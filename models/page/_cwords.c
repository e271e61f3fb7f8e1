/* The class and id words of `pagesieve.models.page.context` found in C: which of a set of literal words occur
 * anywhere in a lower-cased ASCII value (`post-content`, `commentlist`), as an OR of their bits.
 *
 * `context.py` configures the words once (`configure`: (bit, word) pairs taken from its `_WORDS`, the one list
 * of them); `literal_bits(value)` then tries, at each position of the value, the words that start with its
 * character. A Python regular expression per group of words cost ~5 us a value, and a page of a new site brings
 * a hundred or more new values (~0.9 ms a page of BlockNet's Collapsed DOM); this is the same answer as those
 * searches for the words that are plain literals (context.py runs the others, and non-ASCII values, in Python).
 * selectors.py's words (trafilatura's rules) use tables of their own, the same search (`configure_table`,
 * `table_bits`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *word;
    Py_ssize_t len;
    long bit;
} Word;

typedef struct {
    Word *words;                    /* sorted by first byte */
    Py_ssize_t n_words;
    Py_ssize_t first_at[257];       /* words[first_at[c] : first_at[c + 1]] start with byte c */
} Table;

/* table 0: context.py's class and id words (`configure`, `literal_bits`); the others: selectors.py's words, one
 * table per attribute and case (`configure_table`, `table_bits`) */
#define N_TABLES 32
static Table tables[N_TABLES];

static void clear(Table *t) {
    for (Py_ssize_t i = 0; i < t->n_words; i++) PyMem_Free(t->words[i].word);
    PyMem_Free(t->words);
    t->words = NULL;
    t->n_words = 0;
    memset(t->first_at, 0, sizeof(t->first_at));
}

static int by_first_byte(const void *a, const void *b) {
    return (int)(unsigned char)((const Word *)a)->word[0] - (int)(unsigned char)((const Word *)b)->word[0];
}

static PyObject *fill(Table *t, PyObject *pairs) {
    PyObject *seq = PySequence_Fast(pairs, "configure: a sequence of (bit, word) pairs");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Word *table = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Word));
    if (table == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    Py_ssize_t filled = 0;
    for (; filled < n; filled++) {
        long bit;
        const char *word;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, filled), "ls#", &bit, &word, &len)) goto fail;
        if (len == 0) {
            PyErr_SetString(PyExc_ValueError, "configure: an empty word");
            goto fail;
        }
        table[filled].word = PyMem_Malloc((size_t)len);
        if (table[filled].word == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(table[filled].word, word, (size_t)len);
        table[filled].len = len;
        table[filled].bit = bit;
    }
    Py_DECREF(seq);
    clear(t);
    qsort(table, (size_t)n, sizeof(Word), by_first_byte);
    t->words = table;
    t->n_words = n;
    for (int c = 0, i = 0; c <= 256; c++) {
        while (i < n && (unsigned char)table[i].word[0] < c) i++;
        t->first_at[c] = i;
    }
    Py_RETURN_NONE;
fail:
    for (Py_ssize_t i = 0; i < filled; i++) PyMem_Free(table[i].word);
    PyMem_Free(table);
    Py_DECREF(seq);
    return NULL;
}

static PyObject *bits_of(const Table *t, PyObject *value) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(value, &len);      /* an ASCII str: its own characters, no copy */
    if (s == NULL) return NULL;
    long bits = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        for (Py_ssize_t k = t->first_at[c]; k < t->first_at[c + 1]; k++) {
            const Word *w = &t->words[k];
            if (w->len <= len - i && memcmp(s + i, w->word, (size_t)w->len) == 0) bits |= w->bit;
        }
    }
    return PyLong_FromLong(bits);
}

static PyObject *configure(PyObject *module, PyObject *pairs) { return fill(&tables[0], pairs); }

static PyObject *literal_bits(PyObject *module, PyObject *value) { return bits_of(&tables[0], value); }

static int slot(PyObject *index) {
    long k = PyLong_AsLong(index);
    if (k == -1 && PyErr_Occurred()) return -1;
    if (k < 1 || k >= N_TABLES) {
        PyErr_Format(PyExc_ValueError, "table must be 1 to %d", N_TABLES - 1);
        return -1;
    }
    return (int)k;
}

static PyObject *configure_table(PyObject *module, PyObject *args) {
    PyObject *index, *pairs;
    if (!PyArg_ParseTuple(args, "OO", &index, &pairs)) return NULL;
    int k = slot(index);
    return k < 0 ? NULL : fill(&tables[k], pairs);
}

static PyObject *table_bits(PyObject *module, PyObject *args) {
    PyObject *index, *value;
    if (!PyArg_ParseTuple(args, "OU", &index, &value)) return NULL;
    int k = slot(index);
    return k < 0 ? NULL : bits_of(&tables[k], value);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_O, "configure([(bit, word), ...]): the words literal_bits looks for"},
    {"literal_bits", literal_bits, METH_O,
     "literal_bits(value): the OR of the bits of the configured words that occur in value (a str)"},
    {"configure_table", configure_table, METH_VARARGS,
     "configure_table(table, [(bit, word), ...]): the words table_bits(table, ...) looks for (table 1 to 31)"},
    {"table_bits", table_bits, METH_VARARGS,
     "table_bits(table, value): the OR of the bits of that table's words that occur in value (a str)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cwords", NULL, -1, methods};

PyMODINIT_FUNC PyInit__cwords(void) { return PyModule_Create(&module); }
