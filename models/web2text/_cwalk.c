/* The Web2Text Collapsed DOM (`pagesieve.models.web2text.dom.collapse_dom`) in C: the walk of `_walk_python` and
 * the collapse of `_collapse`, with the same values.
 *
 * It reads libxml2's xmlNode tree under an lxml element directly (lxml's `struct LxmlElement` gives the node) and
 * reproduces what the Python loop over `etree.iterwalk` computes, value for value: lxml's `.text`/`.tail` (runs of
 * adjacent text nodes), lengths in code points (libxml2 holds UTF-8), `str.isspace()`, the estimated source
 * offsets, never-rendered subtrees, the class-path ids in first-seen order and the context bits (computed by the
 * Python functions, cached here per distinct value). No Python proxy is made per element: `collapse_dom` makes
 * them for the chain tops and text holders only, `walk` (the raw tree, for the tests) on demand (`Nodes.take`).
 *
 * Both return None for a tree this module does not handle (a namespaced element or attribute, an entity
 * reference, an attribute value made of several nodes: none of them comes out of lxml's HTML parser), and the
 * caller then runs the Python walk: a result of this module is either exact or absent.
 *
 * It also holds `xpaths_of` (pagesieve.models.page.dom.xpaths_of: libxml2's getpath of many elements, linear in the
 * tree), which reads the same nodes the same way and so lives here rather than in a second extension.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"   /* helpers of lxml's headers this module does not call */
#include "lxml-version.h"
#include "etree_defs.h"
#include "etree_api.h"
#pragma GCC diagnostic pop

/* ---- configuration, from dom.py (`configure`) ---- */
static PyObject *cfg_invisible, *cfg_block, *cfg_form, *cfg_cue, *cfg_tag_bits, *cfg_attribute_bits,
    *cfg_class_token;

/* ---- a small hash table keyed by two byte strings, for the caches ---- */
typedef struct {
    uint64_t hash;
    char *key;          /* a, then b, copied; NULL marks an empty slot */
    size_t alen, blen;
    PyObject *obj;      /* owned */
    int64_t num;
} Slot;

typedef struct {
    Slot *slots;
    size_t mask, used, bytes;
} Table;

/* A cache this full is emptied: bounded memory on hostile pages (at most 2 MB of keys and ~1.5 MB of slots per
 * cache, plus the token cache's strings); values over CACHE_MAX_BYTES are not cached, like the Python caches'
 * CACHED_CHARS (pagesieve.models.page.context). All memory comes from PyMem_* (the GIL is held), so tracemalloc
 * sees it. */
#define CACHE_MAX_ENTRIES 16384
#define CACHE_MAX_KEY_BYTES (2u << 20)
#define CACHE_MAX_BYTES 256

static uint64_t hash2(const char *a, size_t alen, const char *b, size_t blen) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < alen; i++) h = (h ^ (unsigned char)a[i]) * 1099511628211ULL;
    h = (h ^ 0xffU) * 1099511628211ULL;
    for (size_t i = 0; i < blen; i++) h = (h ^ (unsigned char)b[i]) * 1099511628211ULL;
    return h;
}

static void table_clear(Table *t) {
    if (t->slots == NULL) return;
    for (size_t i = 0; i <= t->mask; i++) {
        if (t->slots[i].key != NULL) {
            PyMem_Free(t->slots[i].key);
            Py_XDECREF(t->slots[i].obj);
        }
    }
    PyMem_Free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->used = 0;
    t->bytes = 0;
}

static Slot *table_find(Table *t, uint64_t h, const char *a, size_t alen, const char *b, size_t blen) {
    if (t->slots == NULL) return NULL;
    for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
        Slot *s = &t->slots[i];
        if (s->key == NULL) return NULL;
        if (s->hash == h && s->alen == alen && s->blen == blen && memcmp(s->key, a, alen) == 0 &&
            memcmp(s->key + alen, b, blen) == 0)
            return s;
    }
}

/* Inserts a new key (known to be absent) and steals `obj`; returns 0, or -1 with a MemoryError set. */
static int table_add(Table *t, uint64_t h, const char *a, size_t alen, const char *b, size_t blen, PyObject *obj,
                     int64_t num) {
    if (t->used >= CACHE_MAX_ENTRIES || t->bytes >= CACHE_MAX_KEY_BYTES) table_clear(t);
    if (t->slots == NULL || 2 * (t->used + 1) > t->mask + 1) {
        size_t cap = t->slots == NULL ? 256 : 2 * (t->mask + 1);
        Slot *slots = PyMem_Calloc(cap, sizeof(Slot));
        if (slots == NULL) goto nomem;
        if (t->slots != NULL) {
            for (size_t i = 0; i <= t->mask; i++) {
                if (t->slots[i].key == NULL) continue;
                size_t j = t->slots[i].hash & (cap - 1);
                while (slots[j].key != NULL) j = (j + 1) & (cap - 1);
                slots[j] = t->slots[i];
            }
            PyMem_Free(t->slots);
        }
        t->slots = slots;
        t->mask = cap - 1;
    }
    char *key = PyMem_Malloc(alen + blen + 1);
    if (key == NULL) goto nomem;
    memcpy(key, a, alen);
    memcpy(key + alen, b, blen);
    size_t i = h & t->mask;
    while (t->slots[i].key != NULL) i = (i + 1) & t->mask;
    Slot *s = &t->slots[i];
    s->hash = h;
    s->key = key;
    s->alen = alen;
    s->blen = blen;
    s->obj = obj;
    s->num = num;
    t->used++;
    t->bytes += alen + blen + 1;
    return 0;
nomem:
    Py_XDECREF(obj);
    PyErr_NoMemory();
    return -1;
}

/* process-wide caches (the GIL guards them) */
static Table tag_cache;     /* tag name -> lower-cased tag (obj), flags and tag bits (num) */
static Table attr_cache;    /* attribute name -> name (obj), flags (num) */
static Table bits_cache;    /* (cue attribute name, value) -> attribute_bits (num) */
static Table token_cache;   /* (tag name, class value) -> class-path token (obj) */

#define TAG_BITS_MASK 0xffffffffLL
#define F_INVISIBLE (1LL << 40)
#define F_BLOCK (1LL << 41)
#define F_FORM (1LL << 42)
#define F_LINK (1LL << 43)
#define NCHARS_SHIFT 48
#define A_CUE (1LL << 40)
#define A_CLASS (1LL << 41)

static Py_ssize_t utf8_len(const char *s, size_t n) {
    Py_ssize_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* str.isspace() of valid UTF-8 text (not empty) */
static int utf8_isspace(const char *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        Py_UCS4 c = s[i];
        if (c < 0x80) {
            i += 1;
        } else if (c < 0xE0 && i + 1 < n) {
            c = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
            i += 2;
        } else if (c < 0xF0 && i + 2 < n) {
            c = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            i += 3;
        } else if (i + 3 < n) {
            c = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
            i += 4;
        } else {
            return 0;   /* truncated: lxml could not decode it either */
        }
        if (!Py_UNICODE_ISSPACE(c)) return 0;
    }
    return 1;
}

/* The cache entry of a tag name, made on a miss with Python's own lower() and set lookups. */
static Slot *tag_entry(const xmlChar *name) {
    const char *a = (const char *)name;
    size_t alen = strlen(a);
    uint64_t h = hash2(a, alen, "", 0);
    Slot *s = table_find(&tag_cache, h, a, alen, "", 0);
    if (s != NULL) return s;
    PyObject *raw = PyUnicode_DecodeUTF8(a, (Py_ssize_t)alen, NULL);
    if (raw == NULL) return NULL;
    PyObject *lower = PyObject_CallMethod(raw, "lower", NULL);
    Py_ssize_t nchars = PyUnicode_GET_LENGTH(raw);
    Py_DECREF(raw);
    if (lower == NULL) return NULL;
    int64_t num = (int64_t)nchars << NCHARS_SHIFT;
    int r;
    if ((r = PySet_Contains(cfg_invisible, lower)) < 0) goto fail;
    if (r) num |= F_INVISIBLE;
    if ((r = PySet_Contains(cfg_block, lower)) < 0) goto fail;
    if (r) num |= F_BLOCK;
    if ((r = PySet_Contains(cfg_form, lower)) < 0) goto fail;
    if (r) num |= F_FORM;
    if (PyUnicode_CompareWithASCIIString(lower, "a") == 0) num |= F_LINK;
    PyObject *bits = PyObject_CallOneArg(cfg_tag_bits, lower);
    if (bits == NULL) goto fail;
    long long b = PyLong_AsLongLong(bits);
    Py_DECREF(bits);
    if (b == -1 && PyErr_Occurred()) goto fail;
    if (b < 0 || b > TAG_BITS_MASK) {
        PyErr_SetString(PyExc_ValueError, "tag bits out of range");
        goto fail;
    }
    num |= b;
    if (table_add(&tag_cache, h, a, alen, "", 0, lower, num) < 0) return NULL;
    return table_find(&tag_cache, h, a, alen, "", 0);
fail:
    Py_DECREF(lower);
    return NULL;
}

static Slot *attr_entry(const xmlChar *name) {
    const char *a = (const char *)name;
    size_t alen = strlen(a);
    uint64_t h = hash2(a, alen, "", 0);
    Slot *s = table_find(&attr_cache, h, a, alen, "", 0);
    if (s != NULL) return s;
    PyObject *str = PyUnicode_DecodeUTF8(a, (Py_ssize_t)alen, NULL);
    if (str == NULL) return NULL;
    int64_t num = (int64_t)PyUnicode_GET_LENGTH(str) << NCHARS_SHIFT;
    int r = PySet_Contains(cfg_cue, str);
    if (r < 0) {
        Py_DECREF(str);
        return NULL;
    }
    if (r) num |= A_CUE;
    if (strcmp(a, "class") == 0) num |= A_CLASS;
    if (table_add(&attr_cache, h, a, alen, "", 0, str, num) < 0) return NULL;
    return table_find(&attr_cache, h, a, alen, "", 0);
}

/* attribute_bits(name, value); -1 on error */
static int64_t cue_bits(Slot *attr, const char *v, size_t vlen) {
    const char *a = attr->key;
    size_t alen = attr->alen;
    uint64_t h = 0;
    if (vlen <= CACHE_MAX_BYTES) {
        h = hash2(a, alen, v, vlen);
        Slot *s = table_find(&bits_cache, h, a, alen, v, vlen);
        if (s != NULL) return s->num;
    }
    PyObject *value = PyUnicode_DecodeUTF8(v, (Py_ssize_t)vlen, NULL);
    if (value == NULL) return -1;
    PyObject *bits = PyObject_CallFunctionObjArgs(cfg_attribute_bits, attr->obj, value, NULL);
    Py_DECREF(value);
    if (bits == NULL) return -1;
    long long b = PyLong_AsLongLong(bits);
    Py_DECREF(bits);
    if (b == -1 && PyErr_Occurred()) return -1;
    if (vlen <= CACHE_MAX_BYTES && table_add(&bits_cache, h, a, alen, v, vlen, NULL, b) < 0) return -1;
    return b;
}

/* _class_token(tag_name, class_value) as a new reference */
static PyObject *class_token(const xmlChar *name, const char *v, size_t vlen) {
    const char *a = (const char *)name;
    size_t alen = strlen(a);
    uint64_t h = 0;
    if (vlen <= CACHE_MAX_BYTES) {
        h = hash2(a, alen, v, vlen);
        Slot *s = table_find(&token_cache, h, a, alen, v, vlen);
        if (s != NULL) {
            Py_INCREF(s->obj);
            return s->obj;
        }
    }
    PyObject *tag = PyUnicode_DecodeUTF8(a, (Py_ssize_t)alen, NULL);
    if (tag == NULL) return NULL;
    PyObject *value = PyUnicode_DecodeUTF8(v, (Py_ssize_t)vlen, NULL);
    if (value == NULL) {
        Py_DECREF(tag);
        return NULL;
    }
    PyObject *token = PyObject_CallFunctionObjArgs(cfg_class_token, tag, value, NULL);
    Py_DECREF(tag);
    Py_DECREF(value);
    if (token == NULL) return NULL;
    if (vlen <= CACHE_MAX_BYTES) {
        Py_INCREF(token);
        if (table_add(&token_cache, h, a, alen, v, vlen, token, 0) < 0) {
            Py_DECREF(token);
            return NULL;
        }
    }
    return token;
}

/* ---- per-call growable arrays ---- */
typedef struct {
    int64_t *parent, *last, *start, *stop, *depth, *context, *path;
    char *is_text, *form, *in_link, *brk;
    xmlNode **node;
    Py_ssize_t n, cap;
} Raw;

static int raw_grow(Raw *r) {
    Py_ssize_t cap = r->cap ? 2 * r->cap : 1024;
    int64_t **ints[] = {&r->parent, &r->last, &r->start, &r->stop, &r->depth, &r->context, &r->path};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        int64_t *p = PyMem_Realloc(*ints[i], cap * sizeof(int64_t));
        if (p == NULL) return -1;
        *ints[i] = p;
    }
    char **flags[] = {&r->is_text, &r->form, &r->in_link, &r->brk};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        char *p = PyMem_Realloc(*flags[i], cap);
        if (p == NULL) return -1;
        *flags[i] = p;
    }
    xmlNode **p = PyMem_Realloc(r->node, cap * sizeof(xmlNode *));
    if (p == NULL) return -1;
    r->node = p;
    r->cap = cap;
    return 0;
}

static void raw_free(Raw *r) {
    void *arrays[] = {r->parent, r->last, r->start, r->stop, r->depth, r->context, r->path, r->is_text, r->form,
                      r->in_link, r->brk, r->node};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
}

/* uint64 -> int64 map for the class paths of one page: (parent path id + 1, token id) -> path id */
typedef struct {
    uint64_t *keys;     /* 0 = empty */
    int64_t *values;
    size_t mask, used;
} IntMap;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

/* the value of `key`, adding `fresh` when absent (dict.setdefault); -1 on memory error */
static int64_t intmap_setdefault(IntMap *m, uint64_t key, int64_t fresh) {
    if (m->keys == NULL || 2 * (m->used + 1) > m->mask + 1) {
        size_t cap = m->keys == NULL ? 256 : 2 * (m->mask + 1);
        uint64_t *keys = PyMem_Calloc(cap, sizeof(uint64_t));
        int64_t *values = PyMem_Malloc(cap * sizeof(int64_t));
        if (keys == NULL || values == NULL) {
            PyMem_Free(keys); PyMem_Free(values);
            PyErr_NoMemory();
            return -1;
        }
        if (m->keys != NULL) {
            for (size_t i = 0; i <= m->mask; i++) {
                if (m->keys[i] == 0) continue;
                size_t j = mix(m->keys[i]) & (cap - 1);
                while (keys[j] != 0) j = (j + 1) & (cap - 1);
                keys[j] = m->keys[i];
                values[j] = m->values[i];
            }
            PyMem_Free(m->keys); PyMem_Free(m->values);
        }
        m->keys = keys; m->values = values; m->mask = cap - 1;
    }
    size_t i = mix(key) & m->mask;
    while (m->keys[i] != 0) {
        if (m->keys[i] == key) return m->values[i];
        i = (i + 1) & m->mask;
    }
    m->keys[i] = key;
    m->values[i] = fresh;
    m->used++;
    return fresh;
}

/* ---- lxml's text semantics ---- */
typedef struct {
    char *buf;
    size_t cap;
} Scratch;

typedef struct {
    const char *p;
    size_t nbytes;
} Text;

/* `_collectText(c_node)`: the run of text (and CDATA) nodes starting at c_node, XInclude markers skipped. */
static int collect_text(xmlNode *c, Scratch *scratch, Text *out) {
    const char *single = NULL;
    size_t single_len = 0, total = 0;
    int parts = 0;
    for (xmlNode *t = c; t != NULL; t = t->next) {
        if (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) {
            if (t->content != NULL && t->content[0] != '\0') {
                size_t k = strlen((const char *)t->content);
                single = (const char *)t->content;
                single_len = k;
                total += k;
                parts++;
            }
        } else if (t->type != XML_XINCLUDE_START && t->type != XML_XINCLUDE_END) {
            break;
        }
    }
    if (parts <= 1) {
        out->p = single;
        out->nbytes = single_len;
        return 0;
    }
    if (scratch->cap < total) {
        char *b = PyMem_Realloc(scratch->buf, total);
        if (b == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        scratch->buf = b;
        scratch->cap = total;
    }
    size_t at = 0;
    for (xmlNode *t = c; t != NULL; t = t->next) {
        if (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) {
            if (t->content != NULL) {
                size_t k = strlen((const char *)t->content);
                memcpy(scratch->buf + at, t->content, k);
                at += k;
            }
        } else if (t->type != XML_XINCLUDE_START && t->type != XML_XINCLUDE_END) {
            break;
        }
    }
    out->p = scratch->buf;
    out->nbytes = total;
    return 0;
}

/* code points of `_collectText(c)` without building it */
static Py_ssize_t text_len(xmlNode *c) {
    Py_ssize_t k = 0;
    for (xmlNode *t = c; t != NULL; t = t->next) {
        if (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) {
            if (t->content != NULL) k += utf8_len((const char *)t->content, strlen((const char *)t->content));
        } else if (t->type != XML_XINCLUDE_START && t->type != XML_XINCLUDE_END) {
            break;
        }
    }
    return k;
}

/* The value lxml's items() gives for an attribute (xmlGetNsProp: the first attribute of that name). 0: ok;
 * 1: a value this walk does not handle (several nodes, entities); the attribute must have no namespace. */
static int attr_value(xmlNode *el, xmlAttr *attr, const char **v, size_t *vlen) {
    xmlAttr *first = attr;
    for (xmlAttr *p = el->properties; p != NULL; p = p->next) {
        if (p->ns == NULL && strcmp((const char *)p->name, (const char *)attr->name) == 0) {
            first = p;
            break;
        }
    }
    xmlNode *c = first->children;
    if (c == NULL) {
        *v = "";
        *vlen = 0;
        return 0;
    }
    if (c->next != NULL || (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE) || c->content == NULL)
        return 1;
    *v = (const char *)c->content;
    *vlen = strlen(*v);
    return 0;
}

#define UNSUPPORTED 1

/* `_hidden_len(element)`: estimated characters from its start tag to its end tag; UNSUPPORTED or -1 (error) */
static int hidden_len(xmlNode *root, Py_ssize_t *out) {
    Py_ssize_t n = -text_len(root->next);
    xmlNode *c = root;
    while (c != NULL) {
        if (c->type == XML_ELEMENT_NODE) {
            if (c->ns != NULL) return UNSUPPORTED;
            Slot *tag = tag_entry(c->name);
            if (tag == NULL) return -1;
            n += 2 * (tag->num >> NCHARS_SHIFT) + 5 + text_len(c->children) + text_len(c->next);
            for (xmlAttr *a = c->properties; a != NULL; a = a->next) {
                if (a->type != XML_ATTRIBUTE_NODE) continue;
                if (a->ns != NULL) return UNSUPPORTED;
                const char *v;
                size_t vlen;
                if (attr_value(c, a, &v, &vlen)) return UNSUPPORTED;
                n += utf8_len((const char *)a->name, strlen((const char *)a->name)) + utf8_len(v, vlen) + 4;
            }
            if (c->children != NULL) {
                c = c->children;
                continue;
            }
        } else if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) {
            const char *t = (const char *)c->content;
            n += (t ? utf8_len(t, strlen(t)) : 0) + 7 + text_len(c->next);
        } else if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE && c->type != XML_XINCLUDE_START &&
                   c->type != XML_XINCLUDE_END) {
            return UNSUPPORTED;
        }
        /* next in pre-order within root's subtree */
        while (c != root && c->next == NULL) c = c->parent;
        if (c == root) break;
        c = c->next;
    }
    *out = n;
    return 0;
}

/* ---- the proxies of kept raw nodes, made on demand ---- */
typedef struct {
    PyObject_HEAD
    PyObject *root;     /* the lxml element walked: keeps the document alive */
    xmlNode **node;
    Py_ssize_t n;
} Nodes;

static void nodes_dealloc(Nodes *self) {
    Py_XDECREF(self->root);
    PyMem_Free(self->node);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *nodes_take(Nodes *self, PyObject *indices) {
    PyObject *seq = PySequence_Fast(indices, "indices must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(k);
    if (out == NULL) goto fail;
    struct LxmlDocument *doc = ((struct LxmlElement *)self->root)->_doc;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_ssize_t i = PyNumber_AsSsize_t(PySequence_Fast_GET_ITEM(seq, j), PyExc_IndexError);
        if (i == -1 && PyErr_Occurred()) goto fail;
        if (i < 0 || i >= self->n) {
            PyErr_SetString(PyExc_IndexError, "raw node index out of range");
            goto fail;
        }
        PyObject *proxy = (PyObject *)elementFactory(doc, self->node[i]);
        if (proxy == NULL) goto fail;
        PyList_SET_ITEM(out, j, proxy);
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_DECREF(seq);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef nodes_methods[] = {
    {"take", (PyCFunction)nodes_take, METH_O, "lxml elements of the given raw node indices (a text node: its holder)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NodesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pagesieve.models.web2text._cwalk.Nodes",
    .tp_basicsize = sizeof(Nodes),
    .tp_dealloc = (destructor)nodes_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The elements of a walk's raw nodes, as lxml proxies on demand.",
    .tp_methods = nodes_methods,
};

/* ---- the walk ---- */
typedef struct {
    xmlNode *node;
    int64_t num;        /* its tag entry's flags */
} Open;

#define TOO_MANY_BLOCKS 2
#define TOO_MANY_NODES 3

typedef struct {
    Raw r;
    PyObject *texts;    /* list: the text of each text node, the lower-cased tag of each element */
    Open *wstack;       /* elements open in the walk (all, from the root) */
    Py_ssize_t wn, wcap;
    int64_t *open;      /* raw indices of the open elements under the body */
    Py_ssize_t on;
    IntMap paths;
    PyObject *token_ids;
    Scratch scratch;
    /* state */
    Py_ssize_t pos, n_texts, last_text, links;
    int inside, pending_break;
    int context;
    Py_ssize_t max_texts, max_nodes;
} Walk;

static int push_raw(Walk *w) {
    if (w->r.n == w->r.cap && raw_grow(&w->r) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The text after an event (None is an empty Text): the holder logic of `_walk_python`. 0, -1, or a TOO_* code. */
static int on_text(Walk *w, Text *t) {
    if (t->nbytes == 0) return 0;
    Py_ssize_t nchars = utf8_len(t->p, t->nbytes);
    if (w->inside && w->on > 0 && !utf8_isspace(t->p, t->nbytes)) {
        int64_t holder = w->open[w->on - 1];
        Raw *r = &w->r;
        PyObject *s = PyUnicode_DecodeUTF8(t->p, (Py_ssize_t)t->nbytes, NULL);
        if (s == NULL) return -1;
        if (w->last_text == r->n - 1 && r->parent[w->last_text] == holder) {
            /* only comments or hidden elements in between: one text node */
            PyObject *joined = PyUnicode_Concat(PyList_GET_ITEM(w->texts, w->last_text), s);
            Py_DECREF(s);
            if (joined == NULL) return -1;
            PyList_SetItem(w->texts, w->last_text, joined);
            r->stop[w->last_text] = w->pos + nchars;
        } else {
            if (w->n_texts == w->max_texts || r->n == w->max_nodes) {
                Py_DECREF(s);
                return w->n_texts == w->max_texts ? TOO_MANY_BLOCKS : TOO_MANY_NODES;
            }
            if (push_raw(w) < 0 || PyList_Append(w->texts, s) < 0) {
                Py_DECREF(s);
                return -1;
            }
            Py_DECREF(s);
            w->n_texts++;
            Py_ssize_t i = r->n++;
            r->node[i] = r->node[holder];
            r->is_text[i] = 1;
            r->parent[i] = holder;
            r->last[i] = i;
            r->start[i] = w->pos;
            r->stop[i] = w->pos + nchars;
            r->form[i] = 0;
            r->in_link[i] = w->links > 0;
            r->brk[i] = (char)w->pending_break;
            r->context[i] = r->context[holder];
            r->depth[i] = r->depth[holder];
            r->path[i] = r->path[holder];
            w->pending_break = 0;
            w->last_text = i;
        }
    }
    w->pos += nchars;
    return 0;
}

/* an element's start (not a hidden one): 0, -1, UNSUPPORTED or TOO_MANY_NODES */
static int on_start(Walk *w, xmlNode *node, Slot *tag, xmlNode *body) {
    Raw *r = &w->r;
    Py_ssize_t begin = w->pos;
    w->pos += (tag->num >> NCHARS_SHIFT) + 2;
    if (node == body) w->inside = 1;
    int64_t parent = w->on > 0 ? w->open[w->on - 1] : -1;
    int own = w->inside && w->context && parent >= 0;
    int64_t bits = own ? (tag->num & TAG_BITS_MASK) : 0;
    const char *class_value = NULL;
    size_t class_len = 0;
    for (xmlAttr *a = node->properties; a != NULL; a = a->next) {
        if (a->type != XML_ATTRIBUTE_NODE) continue;
        if (a->ns != NULL) return UNSUPPORTED;
        const char *v;
        size_t vlen;
        if (attr_value(node, a, &v, &vlen)) return UNSUPPORTED;
        Slot *name = attr_entry(a->name);
        if (name == NULL) return -1;
        w->pos += (name->num >> NCHARS_SHIFT) + utf8_len(v, vlen) + 4;
        if (name->num & A_CLASS) {
            class_value = v;
            class_len = vlen;
        }
        if (own && (name->num & A_CUE)) {
            int64_t b = cue_bits(name, v, vlen);
            if (b == -1) return -1;
            bits |= b;
        }
    }
    if (!w->inside) return 0;
    if (r->n == w->max_nodes) return TOO_MANY_NODES;
    if (tag->num & F_BLOCK) w->pending_break = 1;
    if (push_raw(w) < 0 || PyList_Append(w->texts, tag->obj) < 0) return -1;
    Py_ssize_t i = r->n++;
    r->node[i] = node;
    r->is_text[i] = 0;
    r->parent[i] = parent;
    r->last[i] = -1;
    r->start[i] = begin;
    r->stop[i] = begin;
    r->form[i] = (tag->num & F_FORM) != 0;
    r->in_link[i] = w->links > 0;
    r->brk[i] = 0;
    r->context[i] = own ? (r->context[parent] | bits) : 0;
    r->depth[i] = w->on + 1;
    /* class path: (parent's path id, token) interned in first-seen order */
    PyObject *token;
    if (class_value == NULL) {
        token = tag->obj;
        Py_INCREF(token);
    } else {
        token = class_token(node->name, class_value, class_len);
        if (token == NULL) return -1;
    }
    PyObject *id = PyDict_GetItemWithError(w->token_ids, token);
    int64_t token_id;
    if (id != NULL) {
        token_id = PyLong_AsLongLong(id);
    } else {
        if (PyErr_Occurred()) {
            Py_DECREF(token);
            return -1;
        }
        token_id = PyDict_GET_SIZE(w->token_ids);
        id = PyLong_FromLongLong(token_id);
        if (id == NULL || PyDict_SetItem(w->token_ids, token, id) < 0) {
            Py_XDECREF(id);
            Py_DECREF(token);
            return -1;
        }
        Py_DECREF(id);
    }
    Py_DECREF(token);
    uint64_t key = ((uint64_t)(parent >= 0 ? r->path[parent] + 1 : 0) << 32 | (uint64_t)token_id) + 1;
    int64_t path = intmap_setdefault(&w->paths, key, (int64_t)w->paths.used);
    if (path < 0) return -1;
    r->path[i] = path;
    w->open[w->on++] = i;
    if (tag->num & F_LINK) w->links++;
    return 0;
}

static void on_end(Walk *w, Open *o, xmlNode *body) {
    w->pos += (o->num >> NCHARS_SHIFT) + 3;
    if (!w->inside) return;
    int64_t closed = w->open[--w->on];
    w->r.stop[closed] = w->pos;
    w->r.last[closed] = w->r.n - 1;
    if (o->num & F_LINK) w->links--;
    if (o->num & F_BLOCK) w->pending_break = 1;
    if (o->node == body) {
        w->inside = 0;
        w->on = 0;
    }
}

static int push_open(Walk *w, xmlNode *node, int64_t num) {
    if (w->wn == w->wcap) {
        Py_ssize_t cap = w->wcap ? 2 * w->wcap : 256;
        Open *s = PyMem_Realloc(w->wstack, cap * sizeof(Open));
        int64_t *o = PyMem_Realloc(w->open, cap * sizeof(int64_t));
        if (s != NULL) w->wstack = s;
        if (o != NULL) w->open = o;
        if (s == NULL || o == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        w->wcap = cap;
    }
    w->wstack[w->wn].node = node;
    w->wstack[w->wn].num = num;
    w->wn++;
    return 0;
}

static PyObject *bytes_of(const void *p, Py_ssize_t nbytes) {
    return PyBytes_FromStringAndSize(nbytes ? (const char *)p : "", nbytes);
}

/* 0: done; -1: error; UNSUPPORTED; TOO_* */
static int run_walk(Walk *w, xmlNode *root, xmlNode *body) {
    Text t;
    int rc;
    w->inside = body == root;
    Slot *tag = tag_entry(root->name);
    if (tag == NULL) return -1;
    if (root->ns != NULL) return UNSUPPORTED;
    if (push_open(w, root, tag->num) < 0) return -1;
    if (collect_text(root->children, &w->scratch, &t) < 0) return -1;
    if ((rc = on_start(w, root, tag, body)) != 0) return rc;
    if ((rc = on_text(w, &t)) != 0) return rc;
    xmlNode *c = root->children;
    for (;;) {
        if (c == NULL) {                    /* the end of the innermost open element */
            Open *o = &w->wstack[w->wn - 1];
            xmlNode *node = o->node;
            int is_root = node == root;
            if (!is_root && collect_text(node->next, &w->scratch, &t) < 0) return -1;
            on_end(w, o, body);
            w->wn--;
            if (is_root) break;
            if ((rc = on_text(w, &t)) != 0) return rc;
            c = node->next;
            continue;
        }
        switch (c->type) {
        case XML_ELEMENT_NODE:
            if (c->ns != NULL) return UNSUPPORTED;
            tag = tag_entry(c->name);
            if (tag == NULL) return -1;
            if (tag->num & F_INVISIBLE) {   /* never rendered: skipped, its markup counted */
                if (w->inside && w->on > 0 && (tag->num & F_FORM)) w->r.form[w->open[w->on - 1]] = 1;
                Py_ssize_t hidden;
                if ((rc = hidden_len(c, &hidden)) != 0) return rc;
                w->pos += hidden;
                if (collect_text(c->next, &w->scratch, &t) < 0) return -1;
                if ((rc = on_text(w, &t)) != 0) return rc;
                c = c->next;
            } else {
                if (push_open(w, c, tag->num) < 0) return -1;
                if (collect_text(c->children, &w->scratch, &t) < 0) return -1;
                if ((rc = on_start(w, c, tag, body)) != 0) return rc;
                if ((rc = on_text(w, &t)) != 0) return rc;
                c = c->children;
            }
            break;
        case XML_COMMENT_NODE:
        case XML_PI_NODE: {
            const char *s = (const char *)c->content;
            w->pos += (s ? utf8_len(s, strlen(s)) : 0) + 7;
            if (collect_text(c->next, &w->scratch, &t) < 0) return -1;
            if ((rc = on_text(w, &t)) != 0) return rc;
            c = c->next;
            break;
        }
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
        case XML_XINCLUDE_START:
        case XML_XINCLUDE_END:
            c = c->next;                    /* text: read as the .text or .tail of a neighbour */
            break;
        default:
            return UNSUPPORTED;             /* entity references and the like: the Python walk */
        }
    }
    w->pos += text_len(root->next);         /* the walk leaves the root's tail out */
    return 0;
}


/* ---- section 3.1 on the raw tree: the CollapsedDOM's fields (dom.py `_collapse`, the same values) ---- */
static PyObject *text_label;    /* "#text" */

/* `" ".join(text.split())` */
static PyObject *collapse_space(PyObject *text) {
    PyObject *words = PyUnicode_Split(text, NULL, -1);
    if (words == NULL) return NULL;
    PyObject *space = PyUnicode_FromOrdinal(' ');
    PyObject *out = space ? PyUnicode_Join(space, words) : NULL;
    Py_XDECREF(space);
    Py_DECREF(words);
    return out;
}

static int set_int(PyObject *list, Py_ssize_t i, int64_t v) {
    PyObject *o = PyLong_FromLongLong(v);
    return o == NULL ? -1 : PyList_SetItem(list, i, o);
}

static int set_bool(PyObject *list, Py_ssize_t i, int v) {
    return PyList_SetItem(list, i, PyBool_FromLong(v));
}

static PyObject *filled(Py_ssize_t m, PyObject *value) {
    PyObject *list = PyList_New(m);
    if (list == NULL) return NULL;
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_INCREF(value);
        PyList_SET_ITEM(list, k, value);
    }
    return list;
}

enum { C_PARENT, C_END, C_DEPTH, C_TAGS, C_TOP, C_START, C_STOP, C_FORM, C_TEXT, C_HOLDER, C_LINK, C_BREAK, C_GLUED,
       C_PATH, C_CONTEXT, C_HDEPTH, C_LEAVES, C_FIELDS };

static PyObject *cdom_fields(Walk *w, PyObject *root_obj) {
    Raw *r = &w->r;
    Py_ssize_t n = r->n;
    struct LxmlDocument *doc = ((struct LxmlElement *)root_obj)->_doc;
    PyObject *f[C_FIELDS] = {NULL};
    PyObject *result = NULL, *chain = NULL, *minus1 = NULL, *zero = NULL;
    int64_t *text_before = PyMem_Malloc((n + 1) * sizeof(int64_t));
    int64_t *form_before = PyMem_Malloc((n + 1) * sizeof(int64_t));
    int64_t *kept_children = PyMem_Calloc(n + 1, sizeof(int64_t)), *top = PyMem_Malloc((n + 1) * sizeof(int64_t));
    int64_t *starts_before = PyMem_Malloc((n + 1) * sizeof(int64_t)), *depth = NULL;
    char *kept = PyMem_Malloc(n + 1), *starts = PyMem_Malloc(n + 1);
    if (!text_before || !form_before || !kept_children || !top || !starts_before || !kept || !starts) {
        PyErr_NoMemory();
        goto done;
    }
    /* subtree flags from prefix counts: node i's subtree is i..last[i] */
    text_before[0] = form_before[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        text_before[i + 1] = text_before[i] + r->is_text[i];
        form_before[i + 1] = form_before[i] + r->form[i];
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        kept[i] = text_before[r->last[i] + 1] > text_before[i];
        if (kept[i] && r->parent[i] >= 0) kept_children[r->parent[i]]++;
    }
    /* a kept node that is its parent's only kept child joins the parent's chain (pre-order: parents first) */
    starts_before[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t p = r->parent[i];
        int merged = kept[i] && p >= 0 && kept_children[p] == 1;
        starts[i] = kept[i] && !merged;
        top[i] = merged ? top[p] : i;
        starts_before[i + 1] = starts_before[i] + starts[i];
    }
    Py_ssize_t m = (Py_ssize_t)starts_before[n];
    depth = PyMem_Calloc(m + 1, sizeof(int64_t));
    minus1 = PyLong_FromLong(-1);
    zero = PyLong_FromLong(0);
    if (depth == NULL || minus1 == NULL || zero == NULL) {
        if (depth == NULL) PyErr_NoMemory();
        goto done;
    }
    PyObject *defaults[C_FIELDS] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, Py_None, Py_None, Py_False,
                                    Py_False, Py_False, minus1, zero, zero, NULL};
    for (int j = 0; j < C_LEAVES; j++) {
        f[j] = defaults[j] ? filled(m, defaults[j]) : PyList_New(m);
        if (f[j] == NULL) goto done;
    }
    f[C_LEAVES] = PyList_New(0);
    if (f[C_LEAVES] == NULL) goto done;
    Py_ssize_t k = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!kept[i]) continue;
        if (starts[i]) {
            if (k >= 0 && chain != NULL) {
                PyList_SET_ITEM(f[C_TAGS], k, PyList_AsTuple(chain));
                Py_CLEAR(chain);
                if (PyList_GET_ITEM(f[C_TAGS], k) == NULL) goto done;
            }
            k++;
            int64_t p = r->parent[i];
            int64_t cp = p >= 0 ? starts_before[top[p]] : -1;
            /* depth[k] = depth[parent] + 1 from the second node on, with Python's index -1 for a parentless one */
            if (k > 0) depth[k] = depth[cp >= 0 ? cp : m + cp] + 1;
            PyObject *proxy = (PyObject *)elementFactory(doc, r->node[i]);
            if (proxy == NULL) goto done;
            PyList_SET_ITEM(f[C_TOP], k, proxy);
            if (set_int(f[C_PARENT], k, cp) < 0 || set_int(f[C_END], k, starts_before[r->last[i] + 1] - 1) < 0 ||
                set_int(f[C_DEPTH], k, depth[k]) < 0 || set_int(f[C_START], k, r->start[i]) < 0 ||
                set_int(f[C_STOP], k, r->stop[i]) < 0 ||
                set_bool(f[C_FORM], k, form_before[r->last[i] + 1] > form_before[i]) < 0)
                goto done;
            chain = PyList_New(0);
            if (chain == NULL) goto done;
        }
        if (chain != NULL && PyList_Append(chain, r->is_text[i] ? text_label : PyList_GET_ITEM(w->texts, i)) < 0)
            goto done;
    }
    if (k >= 0 && chain != NULL) {
        PyList_SET_ITEM(f[C_TAGS], k, PyList_AsTuple(chain));
        Py_CLEAR(chain);
        if (PyList_GET_ITEM(f[C_TAGS], k) == NULL) goto done;
    }
    /* the leaves: one per text node, in document order */
    PyObject *previous = NULL;      /* borrowed: the raw text of the leaf before */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!r->is_text[i]) continue;
        Py_ssize_t leaf = (Py_ssize_t)starts_before[top[i]];
        PyObject *raw = PyList_GET_ITEM(w->texts, i);
        PyObject *text = collapse_space(raw);
        if (text == NULL || PyList_SetItem(f[C_TEXT], leaf, text) < 0) goto done;
        PyObject *proxy = (PyObject *)elementFactory(doc, r->node[i]);
        if (proxy == NULL || PyList_SetItem(f[C_HOLDER], leaf, proxy) < 0) goto done;
        Py_ssize_t len = PyUnicode_GET_LENGTH(raw);
        int glued = previous != NULL && !(len > 0 && Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(raw, 0))) &&
                    !(PyUnicode_GET_LENGTH(previous) > 0 &&
                      Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(previous, PyUnicode_GET_LENGTH(previous) - 1)));
        previous = raw;
        PyObject *index = PyLong_FromSsize_t(leaf);
        if (index == NULL || PyList_Append(f[C_LEAVES], index) < 0) {
            Py_XDECREF(index);
            goto done;
        }
        Py_DECREF(index);
        if (set_bool(f[C_LINK], leaf, r->in_link[i]) < 0 || set_bool(f[C_BREAK], leaf, r->brk[i]) < 0 ||
            set_bool(f[C_GLUED], leaf, glued) < 0 || set_int(f[C_PATH], leaf, r->path[i]) < 0 ||
            set_int(f[C_CONTEXT], leaf, r->context[i]) < 0 || set_int(f[C_HDEPTH], leaf, r->depth[i]) < 0)
            goto done;
    }
    result = PyTuple_New(C_FIELDS + 1);
    if (result == NULL) goto done;
    for (int j = 0; j < C_FIELDS; j++) {
        PyTuple_SET_ITEM(result, j, f[j]);
        f[j] = NULL;
    }
    PyObject *length = PyLong_FromSsize_t(w->pos);
    if (length == NULL) {
        Py_CLEAR(result);
        goto done;
    }
    PyTuple_SET_ITEM(result, C_FIELDS, length);
done:
    for (int j = 0; j < C_FIELDS; j++) Py_XDECREF(f[j]);
    Py_XDECREF(chain);
    Py_XDECREF(minus1);
    Py_XDECREF(zero);
    PyMem_Free(text_before);
    PyMem_Free(form_before);
    PyMem_Free(kept_children);
    PyMem_Free(top);
    PyMem_Free(starts_before);
    PyMem_Free(depth);
    PyMem_Free(kept); PyMem_Free(starts);
    return result;
}

/* set while a walk runs: a second walk started meanwhile (another thread, while this one calls back into Python)
 * gets None and runs the Python walk, so the caches never change under a running walk */
static int busy;

/* collapse: 0 gives `walk`'s raw tree, 1 `collapse_dom`'s fields */
static PyObject *walk_and(PyObject *args, int collapse) {
    PyObject *root_obj, *body_obj;
    int context;
    Py_ssize_t max_texts, max_nodes;
    if (!PyArg_ParseTuple(args, "OOpnn", &root_obj, &body_obj, &context, &max_texts, &max_nodes)) return NULL;
    if (cfg_class_token == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cwalk.configure was not called");
        return NULL;
    }
    /* the caller passes lxml elements (dom.py checks it); their C node is what is walked */
    xmlNode *root = ((struct LxmlElement *)root_obj)->_c_node;
    xmlNode *body = ((struct LxmlElement *)body_obj)->_c_node;
    if (root == NULL || root->type != XML_ELEMENT_NODE || busy) Py_RETURN_NONE;
    busy = 1;
    Walk w;
    memset(&w, 0, sizeof(w));
    w.context = context;
    w.max_texts = max_texts;
    w.max_nodes = max_nodes;
    w.last_text = -1;
    PyObject *result = NULL;
    w.texts = PyList_New(0);
    w.token_ids = PyDict_New();
    if (w.texts == NULL || w.token_ids == NULL) goto done;
    int rc = run_walk(&w, root, body);
    if (rc == -1) goto done;
    if (rc == UNSUPPORTED) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (rc != 0) {
        result = PyLong_FromLong(rc == TOO_MANY_BLOCKS ? 1 : 2);
        goto done;
    }
    if (collapse) {
        result = cdom_fields(&w, root_obj);
        goto done;
    }
    Raw *r = &w.r;
    Nodes *nodes = PyObject_New(Nodes, &NodesType);
    if (nodes == NULL) goto done;
    nodes->root = root_obj;
    Py_INCREF(root_obj);
    nodes->node = r->node;
    nodes->n = r->n;
    r->node = NULL;
    Py_ssize_t n = r->n, i8 = n * (Py_ssize_t)sizeof(int64_t);
    result = Py_BuildValue("(nNNNNNNNNNNNNO)", w.pos, bytes_of(r->parent, i8), bytes_of(r->last, i8),
                           bytes_of(r->start, i8), bytes_of(r->stop, i8), bytes_of(r->depth, i8),
                           bytes_of(r->context, i8), bytes_of(r->path, i8), bytes_of(r->is_text, n),
                           bytes_of(r->form, n), bytes_of(r->in_link, n), bytes_of(r->brk, n), (PyObject *)nodes,
                           w.texts);
done:
    raw_free(&w.r);
    PyMem_Free(w.wstack);
    PyMem_Free(w.open);
    PyMem_Free(w.paths.keys);
    PyMem_Free(w.paths.values);
    PyMem_Free(w.scratch.buf);
    Py_XDECREF(w.texts);
    Py_XDECREF(w.token_ids);
    busy = 0;
    return result;
}

static PyObject *walk(PyObject *module, PyObject *args) {
    return walk_and(args, 0);
}

static PyObject *collapse_dom(PyObject *module, PyObject *args) {
    return walk_and(args, 1);
}

static PyObject *configure(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"invisible", "block", "form", "cue", "tag_bits", "attribute_bits", "class_token", NULL};
    PyObject *v[7];
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO", names, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                                     &v[6]))
        return NULL;
    if (busy) {     /* called back from a running walk's Python function: its caches must stay */
        PyErr_SetString(PyExc_RuntimeError, "_cwalk.configure during a walk");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        if (!PyAnySet_Check(v[i])) {
            PyErr_SetString(PyExc_TypeError, "tag and attribute name sets must be sets");
            return NULL;
        }
    }
    PyObject **slots[] = {&cfg_invisible, &cfg_block, &cfg_form, &cfg_cue, &cfg_tag_bits, &cfg_attribute_bits,
                          &cfg_class_token};
    for (int i = 0; i < 7; i++) {
        Py_INCREF(v[i]);
        Py_XSETREF(*slots[i], v[i]);
    }
    table_clear(&tag_cache);
    table_clear(&attr_cache);
    table_clear(&bits_cache);
    table_clear(&token_cache);
    Py_RETURN_NONE;
}

static PyObject *cache_sizes(PyObject *module, PyObject *unused) {
    return Py_BuildValue("{s(nn)s(nn)s(nn)s(nn)}", "tag", tag_cache.used, tag_cache.bytes, "attribute",
                         attr_cache.used, attr_cache.bytes, "bits", bits_cache.used, bits_cache.bytes, "token",
                         token_cache.used, token_cache.bytes);
}

/* ---- xpaths_of: libxml2's xmlGetNodePath for many elements, linear in the tree ----
 *
 * `pagesieve.models.page.dom.xpaths_of` in C, same strings: `/name` per element from the top down, `[n]` where
 * the parent has several element children of that name (n counts from 1 in document order). getpath counts an
 * element's same-name siblings on every call (quadratic for a parent with thousands of <p>); here each parent's
 * element children are numbered once, into a table keyed by node, and each path is built once, from its parent's
 * (kept in an arena), as the Python version does. */

typedef struct {
    const xmlNode *node;    /* NULL marks an empty slot */
    Py_ssize_t ordinal;     /* 0: the only child of its name (no index); else its [n] */
    size_t path_at;         /* the path in the arena, once built (`built`) */
    uint32_t path_len;
    uint8_t built, fallback;    /* fallback: a namespace or a ':' or '{' on the way, the path is getpath's */
} OrdSlot;

typedef struct {
    OrdSlot *slots;
    size_t mask, used;
} OrdTable;

typedef struct {
    const xmlChar *name;    /* NULL marks an empty slot */
    uint64_t hash;
    Py_ssize_t count, seen;
} NameSlot;

typedef struct {
    OrdTable ordinals;
    NameSlot *names;        /* one parent's children's names, reused from parent to parent */
    size_t names_cap;
    const xmlNode **chain;  /* the element and its ancestors whose paths are not built yet */
    size_t chain_cap;
    char *arena;            /* the built paths */
    size_t arena_len, arena_cap;
} XPaths;

static PyTypeObject *element_type;  /* lxml.etree._Element: the proxies whose _c_node is read */

static size_t ptr_hash(const xmlNode *p) {
    return (size_t)(mix((uint64_t)(uintptr_t)p));
}

static OrdSlot *ord_find(OrdTable *t, const xmlNode *node) {
    if (t->slots == NULL) return NULL;
    for (size_t i = ptr_hash(node) & t->mask;; i = (i + 1) & t->mask) {
        if (t->slots[i].node == node) return &t->slots[i];
        if (t->slots[i].node == NULL) return NULL;
    }
}

/* Adds `node` (known to be absent); 0, or -1 with a MemoryError set. Slot pointers go stale. */
static int ord_add(OrdTable *t, const xmlNode *node, Py_ssize_t ordinal) {
    if (t->slots == NULL || 2 * (t->used + 1) > t->mask + 1) {
        size_t cap = t->slots == NULL ? 1024 : 2 * (t->mask + 1);
        OrdSlot *slots = PyMem_Calloc(cap, sizeof(OrdSlot));
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; t->slots != NULL && i <= t->mask; i++) {
            if (t->slots[i].node == NULL) continue;
            size_t j = ptr_hash(t->slots[i].node) & (cap - 1);
            while (slots[j].node != NULL) j = (j + 1) & (cap - 1);
            slots[j] = t->slots[i];
        }
        PyMem_Free(t->slots);
        t->slots = slots;
        t->mask = cap - 1;
    }
    size_t i = ptr_hash(node) & t->mask;
    while (t->slots[i].node != NULL) i = (i + 1) & t->mask;
    OrdSlot *s = &t->slots[i];
    memset(s, 0, sizeof(*s));
    s->node = node;
    s->ordinal = ordinal;
    t->used++;
    return 0;
}

/* Grows `*p` (of `*cap` items of `size` bytes) to hold `need`; 0, or -1 with a MemoryError set. */
static int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need) cap2 *= 2;
    void *q = PyMem_Realloc(*p, cap2 * size);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = cap2;
    return 0;
}

/* The name slot of `name` (by its bytes: names need not be interned), claimed if absent; the table has room. */
static NameSlot *name_slot(NameSlot *names, size_t mask, const xmlChar *name) {
    uint64_t h = hash2((const char *)name, strlen((const char *)name), "", 0);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        NameSlot *s = &names[i];
        if (s->name == NULL) {
            s->name = name;
            s->hash = h;
            return s;
        }
        if (s->hash == h && (s->name == name || strcmp((const char *)s->name, (const char *)name) == 0)) return s;
    }
}

/* Numbers `parent`'s element children, as xmlGetNodePath does: among the children of the same name and no
 * namespace, [n] in document order where there are several. A namespaced child gets 0: its path is getpath's. */
static int number_children(XPaths *x, const xmlNode *parent) {
    size_t k = 0;
    for (const xmlNode *c = parent->children; c != NULL; c = c->next) k += c->type == XML_ELEMENT_NODE;
    size_t cap = 16;
    while (cap < 2 * k) cap *= 2;
    if (grow((void **)&x->names, &x->names_cap, cap, sizeof(NameSlot)) < 0) return -1;
    memset(x->names, 0, cap * sizeof(NameSlot));
    for (const xmlNode *c = parent->children; c != NULL; c = c->next) {
        if (c->type == XML_ELEMENT_NODE && c->ns == NULL) name_slot(x->names, cap - 1, c->name)->count++;
    }
    for (const xmlNode *c = parent->children; c != NULL; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        Py_ssize_t ordinal = 0;
        if (c->ns == NULL) {
            NameSlot *s = name_slot(x->names, cap - 1, c->name);
            if (s->count > 1) ordinal = ++s->seen;
        }
        if (ord_add(&x->ordinals, c, ordinal) < 0) return -1;
    }
    return 0;
}

/* The slot of an element (its parent's children numbered on first need; a parentless one, 0), or NULL with an
 * error set. */
static OrdSlot *slot_of(XPaths *x, const xmlNode *node) {
    OrdSlot *s = ord_find(&x->ordinals, node);
    if (s != NULL) return s;
    if (node->parent != NULL ? number_children(x, node->parent) : ord_add(&x->ordinals, node, 0)) return NULL;
    return ord_find(&x->ordinals, node);
}

#define XPATH_UNHANDLED 1   /* not an element proxy, or an odd parent (none of lxml's HTML parser): Python's */

/* The built slot of `element`'s node into *out: 0, XPATH_UNHANDLED, or -1 with an error set. */
static int xpath_slot(XPaths *x, PyObject *element, OrdSlot **out) {
    if (!PyObject_TypeCheck(element, element_type)) return XPATH_UNHANDLED;
    const xmlNode *node = ((struct LxmlElement *)element)->_c_node;
    if (node == NULL || node->type != XML_ELEMENT_NODE) return XPATH_UNHANDLED;     /* comments, PIs, entities */
    /* up to the nearest built ancestor, or the top: its parent the document (markup after </html> can make a
     * second top-level <html>, numbered "/html[2]" like any sibling) or none (a detached element) */
    size_t depth = 0;
    OrdSlot *s;
    for (;;) {
        const xmlNode *parent = node->parent;
        if (parent == NULL ? node->prev != NULL || node->next != NULL :
            parent->type != XML_ELEMENT_NODE && parent->type != XML_DOCUMENT_NODE &&
            parent->type != XML_HTML_DOCUMENT_NODE)
            return XPATH_UNHANDLED;
        if ((s = slot_of(x, node)) == NULL) return -1;
        if (s->built) break;
        if (grow((void **)&x->chain, &x->chain_cap, depth + 1, sizeof(xmlNode *)) < 0) return -1;
        x->chain[depth++] = node;
        if (parent == NULL || parent->type != XML_ELEMENT_NODE) break;
        node = parent;
    }
    /* down again: each path is its parent's plus "/name" and its [n] */
    for (size_t i = depth; i-- > 0;) {
        node = x->chain[i];
        size_t at = 0, len = 0;
        int fallback = node->ns != NULL || strpbrk((const char *)node->name, ":{") != NULL;
        if (node->parent != NULL && node->parent->type == XML_ELEMENT_NODE) {
            OrdSlot *p = ord_find(&x->ordinals, node->parent);
            at = p->path_at;
            len = p->path_len;
            fallback |= p->fallback;
        }
        s = ord_find(&x->ordinals, node);
        if (!fallback) {
            size_t name_len = strlen((const char *)node->name);
            size_t need = x->arena_len + len + 1 + name_len + 22;
            if (need > UINT32_MAX || grow((void **)&x->arena, &x->arena_cap, need, 1) < 0) {
                if (!PyErr_Occurred()) PyErr_NoMemory();
                return -1;
            }
            char *w = x->arena + x->arena_len;
            memcpy(w, x->arena + at, len);
            w += len;
            *w++ = '/';
            memcpy(w, node->name, name_len);
            w += name_len;
            if (s->ordinal > 0) {
                char digits[24];
                size_t nd = 0;
                for (Py_ssize_t o = s->ordinal; o > 0; o /= 10) digits[nd++] = (char)('0' + o % 10);
                *w++ = '[';
                while (nd > 0) *w++ = digits[--nd];
                *w++ = ']';
            }
            s->path_at = x->arena_len;
            s->path_len = (uint32_t)(w - (x->arena + x->arena_len));
            x->arena_len += s->path_len;
        }
        s->fallback = (uint8_t)fallback;
        s->built = 1;
    }
    *out = s;
    return 0;
}

static PyObject *xpaths_of(PyObject *module, PyObject *args) {
    PyObject *elements, *fallback;
    if (!PyArg_ParseTuple(args, "OO", &elements, &fallback)) return NULL;
    PyObject *seq = PySequence_Fast(elements, "xpaths_of: elements must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(m);
    XPaths x;
    memset(&x, 0, sizeof(x));
    if (out == NULL) goto fail;
    /* the paths first, the fallbacks (Python calls) after: no Python code runs while node pointers are held */
    for (Py_ssize_t i = 0; i < m; i++) {
        OrdSlot *s = NULL;
        int r = xpath_slot(&x, items[i], &s);
        if (r < 0) goto fail;
        if (r == XPATH_UNHANDLED) {
            Py_CLEAR(out);
            out = Py_NewRef(Py_None);
            goto done;
        }
        PyObject *path = s->fallback ? Py_NewRef(Py_None) :
            PyUnicode_DecodeUTF8(x.arena + s->path_at, (Py_ssize_t)s->path_len, NULL);
        if (path == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) goto fail;
            PyErr_Clear();          /* not UTF-8: lxml's .tag cannot decode it either; the Python version says so */
            Py_CLEAR(out);
            out = Py_NewRef(Py_None);
            goto done;
        }
        PyList_SET_ITEM(out, i, path);
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        if (PyList_GET_ITEM(out, i) != Py_None) continue;
        PyObject *path = PyObject_CallOneArg(fallback, items[i]);
        if (path == NULL) goto fail;
        PyObject *none = PyList_GET_ITEM(out, i);
        PyList_SET_ITEM(out, i, path);
        Py_DECREF(none);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyMem_Free(x.ordinals.slots);
    PyMem_Free(x.names);
    PyMem_Free(x.chain);
    PyMem_Free(x.arena);
    Py_DECREF(seq);
    return out;
}

static PyMethodDef methods[] = {
    {"cache_sizes", cache_sizes, METH_NOARGS, "{cache: (entries, key bytes)} of the process-wide caches"},
    {"walk", walk, METH_VARARGS,
     "walk(root, body, context, max_texts, max_nodes): the raw content tree (a tuple), None for a tree this walk "
     "does not handle, or 1 / 2 for too many blocks / nodes."},
    {"collapse_dom", collapse_dom, METH_VARARGS,
     "collapse_dom(root, body, context, max_texts, max_nodes): the CollapsedDOM's fields in order (a tuple), None "
     "for a tree this walk does not handle, or 1 / 2 for too many blocks / nodes."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     "Set the tag sets and the Python functions the walk uses (dom.py does, once)."},
    {"xpaths_of", xpaths_of, METH_VARARGS,
     "xpaths_of(elements, fallback): libxml2's getpath of each lxml element (pagesieve.models.page.dom.xpaths_of), "
     "fallback(element) for a namespaced one; None for an input the Python version must answer (not an element)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cwalk", NULL, -1, methods};

PyMODINIT_FUNC PyInit__cwalk(void) {
    if (import_lxml__etree() < 0) return NULL;
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (etree == NULL) return NULL;
    element_type = (PyTypeObject *)PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (element_type == NULL) return NULL;
    if (!PyType_Check(element_type)) {
        PyErr_SetString(PyExc_TypeError, "lxml.etree._Element is not a type");
        return NULL;
    }
    text_label = PyUnicode_InternFromString("#text");
    if (text_label == NULL) return NULL;
    if (PyType_Ready(&NodesType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&NodesType);
    if (PyModule_AddObject(m, "Nodes", (PyObject *)&NodesType) < 0) {
        Py_DECREF(&NodesType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
