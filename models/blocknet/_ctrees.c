/* BlockNet's trees predicted in C (`pagesieve.models.blocknet.trees`): their inputs (`context_inputs`), and
 * LightGBM's raw score of a dense float32 matrix from the trees of a LightGBM text model laid out as flat arrays
 * (`trees.TreeArrays`).
 *
 * It follows LightGBM 4's prediction step for step, so the scores are LightGBM's to the last bit: each row's
 * float32 values become doubles, those within 1e-35f of zero become 0.0 (LightGBM's dense-row reader keeps only
 * the others), each tree is walked with LightGBM's numerical decision (a NaN is 0.0 unless the node's missing type
 * is NaN; a node whose missing type is Zero or NaN sends a zero or a NaN its default way; otherwise `value <=
 * threshold` goes left), and the leaf values are summed in double, tree by tree in order, from 0.0. Categorical
 * splits and linear trees are not handled: `trees.py` leaves such a model to LightGBM.
 *
 * Against LightGBM's own predict on one page's few dozen rows, it saves the call's setup and the conversion of each
 * row to (index, value) pairs, and a worker need not import LightGBM (and SciPy) at all.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define ZERO_THRESHOLD ((double)1e-35f)       /* LightGBM's kZeroThreshold */
#define DEFAULT_LEFT 2
#define MISSING_ZERO 1
#define MISSING_NAN 2

typedef struct {
    Py_buffer view;
    int held;
} Buffer;

static int take(Buffer *b, PyObject *obj, Py_ssize_t itemsize, const char *name, int writable) {
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    b->held = 1;
    if (b->view.itemsize != itemsize || b->view.len % itemsize) {
        PyErr_Format(PyExc_ValueError, "predict: %s must hold %zd-byte items", name, itemsize);
        return -1;
    }
    return 0;
}

static void release(Buffer *b) {
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

static inline int32_t next_node(double value, int32_t node, const int32_t *left, const int32_t *right,
                                const double *threshold, const uint8_t *decision) {
    uint8_t missing = (decision[node] >> 2) & 3;
    if (isnan(value) && missing != MISSING_NAN) value = 0.0;
    if ((missing == MISSING_ZERO && value >= -ZERO_THRESHOLD && value <= ZERO_THRESHOLD)
        || (missing == MISSING_NAN && isnan(value)))
        return (decision[node] & DEFAULT_LEFT) ? left[node] : right[node];
    return value <= threshold[node] ? left[node] : right[node];
}

/* The walk of a model whose nodes all have missing type None (LightGBM's default without NaN in training): a value
 * is a NaN-free double once read (NaN -> 0.0), and a node's decision is `value <= threshold` alone. Rows go in chunks
 * of CHUNK, read into doubles once per chunk, and each tree walks LANES rows side by side, so that the CPU overlaps
 * their chains of dependent loads and branches; each row's leaf values are still summed tree by tree, in order. */
#define CHUNK 64
#define LANES 8

static int plain_walk(const float *x, Py_ssize_t n_rows, Py_ssize_t n_features, Py_ssize_t n_trees,
                      const int32_t *node_start, const int32_t *leaf_start, const int32_t *feature,
                      const double *threshold, const int32_t *left, const int32_t *right, const double *leaf_value,
                      double *out) {
    double *values = PyMem_Malloc((size_t)CHUNK * (size_t)n_features * sizeof(double));
    if (values == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t r0 = 0; r0 < n_rows; r0 += CHUNK) {
        Py_ssize_t rows = n_rows - r0 < CHUNK ? n_rows - r0 : CHUNK;
        for (Py_ssize_t i = 0; i < rows * n_features; i++) {
            double v = (double)x[r0 * n_features + i];
            values[i] = (isnan(v) || fabs(v) <= ZERO_THRESHOLD) ? 0.0 : v;
        }
        for (Py_ssize_t r = 0; r < rows; r++) out[r0 + r] = 0.0;
        for (Py_ssize_t t = 0; t < n_trees; t++) {
            int32_t base = node_start[t];
            const double *leaves = leaf_value + leaf_start[t];
            if (base == node_start[t + 1]) {                  /* one leaf: no split */
                for (Py_ssize_t r = 0; r < rows; r++) out[r0 + r] += leaves[0];
                continue;
            }
            const int32_t *tf = feature + base, *tl = left + base, *tr = right + base;
            const double *tt = threshold + base;
            for (Py_ssize_t j0 = 0; j0 < rows; j0 += LANES) {
                int lanes = rows - j0 < LANES ? (int)(rows - j0) : LANES;
                int32_t node[LANES] = {0};
                int active = 1;
                while (active) {
                    active = 0;
                    for (int j = 0; j < lanes; j++) {
                        int32_t k = node[j];
                        if (k < 0) continue;
                        double v = values[(j0 + j) * n_features + tf[k]];
                        node[j] = v <= tt[k] ? tl[k] : tr[k];
                        active |= node[j] >= 0;
                    }
                }
                for (int j = 0; j < lanes; j++) out[r0 + j0 + j] += leaves[~node[j]];
            }
        }
    }
    PyMem_Free(values);
    return 0;
}

/* The trees' arrays (`trees.TreeArrays`), borrowed from Python for one call. */
typedef struct {
    Buffer b[8];
    const int32_t *feature, *left, *right, *node_start, *leaf_start;
    const double *threshold, *leaf_value;
    const uint8_t *decision;
    Py_ssize_t n_nodes, n_leaves, n_trees, n_features;
} Trees;

static void release_trees(Trees *t) {
    for (int i = 0; i < 8; i++) release(&t->b[i]);
}

/* Borrow the eight arrays (feature, threshold, decision, left, right, leaf_value, node_start, leaf_start) and check
 * that their sizes agree: O(1). */
static int take_trees(Trees *t, PyObject **objs, Py_ssize_t n_features, const char *caller) {
    static const char *names[] = {"feature", "threshold", "decision", "left", "right", "leaf_value", "node_start",
                                  "leaf_start"};
    static const Py_ssize_t sizes[] = {4, 8, 1, 4, 4, 8, 4, 4};
    for (int i = 0; i < 8; i++)
        if (take(&t->b[i], objs[i], sizes[i], names[i], 0) < 0) return -1;
    t->feature = t->b[0].view.buf;
    t->threshold = t->b[1].view.buf;
    t->decision = t->b[2].view.buf;
    t->left = t->b[3].view.buf;
    t->right = t->b[4].view.buf;
    t->leaf_value = t->b[5].view.buf;
    t->node_start = t->b[6].view.buf;
    t->leaf_start = t->b[7].view.buf;
    t->n_nodes = t->b[0].view.len / 4;
    t->n_leaves = t->b[5].view.len / 8;
    t->n_trees = t->b[6].view.len / 4 - 1;
    t->n_features = n_features;
    if (t->b[1].view.len / 8 != t->n_nodes || t->b[2].view.len != t->n_nodes || t->b[3].view.len / 4 != t->n_nodes
        || t->b[4].view.len / 4 != t->n_nodes || t->b[7].view.len / 4 != t->n_trees + 1 || t->n_trees < 0
        || n_features <= 0) {
        PyErr_Format(PyExc_ValueError, "%s: arrays of inconsistent sizes", caller);
        return -1;
    }
    return 0;
}

/* check(feature, threshold, decision, left, right, leaf_value, node_start, leaf_start, n_features): whether every
 * index the walk can read lies inside its tree and the row (a ValueError if not), and then whether every node has
 * missing type None (the fast walk applies). `TreeArrays` calls it once, on arrays it then keeps read-only, so
 * that `predict` need not check them on every page. */
static PyObject *check(PyObject *module, PyObject *args) {
    PyObject *objs[8];
    Py_ssize_t n_features;
    if (!PyArg_ParseTuple(args, "OOOOOOOOn", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6],
                          &objs[7], &n_features))
        return NULL;
    Trees t;
    memset(&t, 0, sizeof(t));
    PyObject *result = NULL;
    if (take_trees(&t, objs, n_features, "check") < 0) goto done;
    int all_plain = 1;
    for (Py_ssize_t k = 0; k < t.n_nodes; k++)
        if ((t.decision[k] >> 2) & 3) all_plain = 0;
    for (Py_ssize_t i = 0; i < t.n_trees; i++) {
        int32_t n0 = t.node_start[i], n1 = t.node_start[i + 1], l0 = t.leaf_start[i], l1 = t.leaf_start[i + 1];
        if (n0 < 0 || n1 < n0 || n1 > t.n_nodes || l0 < 0 || l1 <= l0 || l1 > t.n_leaves || l1 - l0 != n1 - n0 + 1) {
            PyErr_SetString(PyExc_ValueError, "check: a tree's nodes or leaves lie outside the arrays");
            goto done;
        }
        for (int32_t k = n0; k < n1; k++) {
            int32_t children[2] = {t.left[k], t.right[k]};
            int bad = t.feature[k] < 0 || t.feature[k] >= n_features;
            for (int c = 0; c < 2; c++)
                bad |= (children[c] >= 0 && children[c] >= n1 - n0) || (children[c] < 0 && ~children[c] >= l1 - l0);
            if (bad) {
                PyErr_SetString(PyExc_ValueError, "check: a node reads a feature or a child outside its tree");
                goto done;
            }
        }
    }
    result = PyBool_FromLong(all_plain);
done:
    release_trees(&t);
    return result;
}

/* predict(feature, threshold, decision, left, right, leaf_value, node_start, leaf_start, n_features, plain, x, out):
 * the raw scores of x's rows into out. The arrays must have passed `check` (which gave `plain`): the walk reads
 * them unchecked. */
static PyObject *predict(PyObject *module, PyObject *args) {
    PyObject *objs[8], *x_obj, *out_obj;
    Py_ssize_t n_features;
    int plain;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnpOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5],
                          &objs[6], &objs[7], &n_features, &plain, &x_obj, &out_obj))
        return NULL;
    Trees t;
    memset(&t, 0, sizeof(t));
    Buffer xb = {0}, ob = {0};
    PyObject *result = NULL;
    if (take_trees(&t, objs, n_features, "predict") < 0 || take(&xb, x_obj, 4, "x", 0) < 0
        || take(&ob, out_obj, 8, "out", 1) < 0)
        goto done;
    const float *x = xb.view.buf;
    double *out = ob.view.buf;
    Py_ssize_t n_rows = xb.view.len / 4 / n_features;
    if (n_rows * n_features * 4 != xb.view.len || ob.view.len / 8 != n_rows) {
        PyErr_SetString(PyExc_ValueError, "predict: arrays of inconsistent sizes");
        goto done;
    }
    if (plain) {
        if (plain_walk(x, n_rows, n_features, t.n_trees, t.node_start, t.leaf_start, t.feature, t.threshold, t.left,
                       t.right, t.leaf_value, out) < 0)
            goto done;
    } else {
        for (Py_ssize_t r = 0; r < n_rows; r++) {
            const float *row = x + r * n_features;
            double sum = 0.0;
            for (Py_ssize_t i = 0; i < t.n_trees; i++) {
                int32_t base = t.node_start[i], node = base < t.node_start[i + 1] ? 0 : -1;   /* one leaf: no split */
                while (node >= 0) {
                    double value = (double)row[t.feature[base + node]];
                    if (fabs(value) <= ZERO_THRESHOLD) value = 0.0;     /* NaN stays NaN */
                    node = next_node(value, node, t.left + base, t.right + base, t.threshold + base,
                                     t.decision + base);
                }
                sum += t.leaf_value[t.leaf_start[i] + ~node];
            }
            out[r] = sum;
        }
    }
    result = Py_NewRef(Py_None);
done:
    release_trees(&t);
    release(&xb);
    release(&ob);
    return result;
}

/* context_inputs(x, rows, radii, out): `trees.context_inputs` but its last column (log(1 + n), left to numpy's
 * log1p): for each row r of `rows`, x[r], the means of x over rows r - k .. r + k for each radius k (cut at the
 * page's ends) and the mean over the page. The sums are numpy's: one running sum per column in double, row by row
 * from the first, and a window's mean is (sum to its end - sum to its start) / its rows, in double, then rounded
 * to float32; the same operations in the same order, so the same floats. */
static PyObject *context_inputs(PyObject *module, PyObject *args) {
    PyObject *objs[4];
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    static const char *names[] = {"x", "rows", "radii", "out"};
    static const Py_ssize_t sizes[] = {4, 8, 8, 4};
    Buffer b[4] = {{0}};
    PyObject *result = NULL;
    double *sums = NULL;
    for (int i = 0; i < 4; i++)
        if (take(&b[i], objs[i], sizes[i], names[i], i == 3) < 0) goto done;
    if (b[0].view.ndim != 2 || b[3].view.ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "context_inputs: x and out must be 2-d");
        goto done;
    }
    Py_ssize_t n = b[0].view.shape[0], f = b[0].view.shape[1];
    Py_ssize_t m = b[1].view.len / 8, n_radii = b[2].view.len / 8;
    const float *x = b[0].view.buf;
    const int64_t *rows = b[1].view.buf, *radii = b[2].view.buf;
    float *out = b[3].view.buf;
    Py_ssize_t width = f * (2 + n_radii) + 1;
    if (b[3].view.shape[0] != m || b[3].view.shape[1] != width) {
        PyErr_SetString(PyExc_ValueError, "context_inputs: out must be (rows, F * (2 + radii) + 1)");
        goto done;
    }
    for (Py_ssize_t i = 0; i < m; i++)
        if (rows[i] < 0 || rows[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "context_inputs: a row outside the page");
            goto done;
        }
    for (Py_ssize_t k = 0; k < n_radii; k++)
        if (radii[k] < 0) {
            PyErr_SetString(PyExc_ValueError, "context_inputs: a negative radius");
            goto done;
        }
    sums = PyMem_Malloc((size_t)(n + 1) * (size_t)(f ? f : 1) * sizeof(double));
    if (sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < f; j++) sums[j] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *above = sums + i * f;
        double *row = sums + (i + 1) * f;
        const float *xi = x + i * f;
        for (Py_ssize_t j = 0; j < f; j++) row[j] = above[j] + (double)xi[j];
    }
    double pages = (double)(n > 1 ? n : 1);
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = (Py_ssize_t)rows[i];
        float *o = out + i * width;
        const float *xr = x + r * f;
        for (Py_ssize_t j = 0; j < f; j++) o[j] = xr[j];
        for (Py_ssize_t k = 0; k < n_radii; k++) {
            Py_ssize_t lo = r - radii[k] > 0 ? r - radii[k] : 0, hi = r + radii[k] + 1 < n ? r + radii[k] + 1 : n;
            const double *s_lo = sums + lo * f, *s_hi = sums + hi * f;
            double span = (double)(hi - lo);
            float *ok = o + (k + 1) * f;
            for (Py_ssize_t j = 0; j < f; j++) ok[j] = (float)((s_hi[j] - s_lo[j]) / span);
        }
        const double *total = sums + n * f;
        float *op = o + (n_radii + 1) * f;
        for (Py_ssize_t j = 0; j < f; j++) op[j] = (float)(total[j] / pages);
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(sums);
    for (int i = 0; i < 4; i++) release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"check", check, METH_VARARGS,
     "check(feature, threshold, decision, left, right, leaf_value, node_start, leaf_start, n_features): whether "
     "every node has missing type None; a ValueError for arrays whose indices leave their tree or the row."},
    {"predict", predict, METH_VARARGS,
     "predict(feature, threshold, decision, left, right, leaf_value, node_start, leaf_start, n_features, plain, x, "
     "out): LightGBM's raw scores of the rows of x (float32, n_features per row) into out (float64); the arrays "
     "must have passed check (which gave plain)."},
    {"context_inputs", context_inputs, METH_VARARGS,
     "context_inputs(x, rows, radii, out): trees.context_inputs of the rows (int64) of x (float32) into out "
     "(float32), all but its last column."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ctrees", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ctrees(void) { return PyModule_Create(&module); }
