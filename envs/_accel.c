/* envs._accel: optional compiled kernels for the measured hot spots of the engines.
 *
 * Every function here has a pure-Python twin that stays the reference (envs/core/accel.py picks
 * one; TABLETOP_ARENA_PURE_PYTHON=1 forces Python). tests/test_accel.py plays seeded games and
 * checks both give identical bytes at every step. The kernels only read and fill buffers that the
 * Python side allocates; they keep no state and never call back into the engines.
 *
 * Built by setup.py as an optional extension: where no C compiler is found the install goes on
 * and the engines run in pure Python (slower, same results).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers ------------ */

static int
get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t nbytes, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    if (nbytes >= 0 && view->len != nbytes) {
        PyErr_Format(PyExc_ValueError, "%s: expected a buffer of %zd bytes, got %zd",
                     what, nbytes, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static int
check_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *name)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
        return -1;
    }
    return 0;
}

static int
as_long(PyObject *o, long *out, const char *what)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------ unpack_bits -------- */

/* unpack_bits(raw, out): out[i] = bit i of the little-endian bytes ``raw`` (out: int8/uint8/bool,
 * len(out) <= 8 * len(raw)). The action masks of Peacekeepers are built as one Python int. */
static PyObject *
unpack_bits(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer raw, out;
    if (check_nargs(nargs, 2, "unpack_bits") < 0)
        return NULL;
    if (get_buffer(args[0], &raw, -1, 0, "raw") < 0)
        return NULL;
    if (get_buffer(args[1], &out, -1, 1, "out") < 0) {
        PyBuffer_Release(&raw);
        return NULL;
    }
    if (out.itemsize != 1 || out.len > 8 * raw.len) {
        PyErr_SetString(PyExc_ValueError, "unpack_bits: out must be 1-byte items, at most 8 per raw byte");
        PyBuffer_Release(&raw);
        PyBuffer_Release(&out);
        return NULL;
    }
    const unsigned char *src = (const unsigned char *)raw.buf;
    unsigned char *dst = (unsigned char *)out.buf;
    Py_ssize_t n = out.len;
    for (Py_ssize_t i = 0; i < n; i++)
        dst[i] = (src[i >> 3] >> (i & 7)) & 1;
    PyBuffer_Release(&raw);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ Peacekeepers --------- */

#define PK_SIZE 10
#define PK_CELLS 100
#define PK_EMPTY (-1)
#define PK_MOUNTAIN 10
#define PK_STRIDE 11                 /* padded bitboard rows: column 10 is never free */
#define PK_BOARD_FLOATS (18 * PK_CELLS)
#define PK_CODE_FLOATS (12 * PK_CELLS)
#define PK_VECTOR 84
#define PK_OBS_FLOATS (PK_BOARD_FLOATS + PK_VECTOR)

typedef unsigned __int128 u128;

static inline u128
pk_bit(int cell)
{
    return (u128)1 << ((cell / PK_SIZE) * PK_STRIDE + cell % PK_SIZE);
}

/* pk_mountains(board, length, out): out[orient * 100 + anchor] = 1 where a range of ``length``
 * peaks fits on empty cells and leaves the empty cells around it joined (the flood of
 * board.mountain_placements_by_flooding; Setup: mountains may not isolate part of the board). */
static PyObject *
pk_mountains(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer board, out;
    long length;
    if (check_nargs(nargs, 3, "pk_mountains") < 0 || as_long(args[1], &length, "length") < 0)
        return NULL;
    if (length < 1 || length > PK_SIZE) {
        PyErr_Format(PyExc_ValueError, "pk_mountains: length must be 1..10, got %ld", length);
        return NULL;
    }
    if (get_buffer(args[0], &board, PK_CELLS, 0, "board") < 0)
        return NULL;
    if (get_buffer(args[2], &out, 2 * PK_CELLS, 1, "out") < 0) {
        PyBuffer_Release(&board);
        return NULL;
    }
    const signed char *b = (const signed char *)board.buf;
    unsigned char *o = (unsigned char *)out.buf;
    u128 free_bits = 0;
    for (int c = 0; c < PK_CELLS; c++)
        if (b[c] == PK_EMPTY)
            free_bits |= pk_bit(c);
    for (int orient = 0; orient < 2; orient++) {
        for (int anchor = 0; anchor < PK_CELLS; anchor++) {
            int r = anchor / PK_SIZE, c = anchor % PK_SIZE;
            unsigned char ok = 0;
            if ((orient == 0 ? c : r) + length <= PK_SIZE) {
                u128 range = 0, ring = 0;
                int fits = 1;
                for (int k = 0; k < length && fits; k++) {
                    int rr = orient ? r + k : r, cc = orient ? c : c + k;
                    int cell = rr * PK_SIZE + cc;
                    fits = b[cell] == PK_EMPTY;
                    range |= pk_bit(cell);
                    if (rr > 0) ring |= pk_bit(cell - PK_SIZE);
                    if (rr < PK_SIZE - 1) ring |= pk_bit(cell + PK_SIZE);
                    if (cc > 0) ring |= pk_bit(cell - 1);
                    if (cc < PK_SIZE - 1) ring |= pk_bit(cell + 1);
                }
                if (fits) {
                    u128 left = free_bits & ~range;
                    ring &= left;
                    if (ring == 0) {
                        ok = 1;
                    } else {
                        /* flood from one free cell next to the range until every free cell
                         * next to it is reached (joined) or the flood stops (cut off) */
                        u128 reach = ring & (~ring + 1);
                        for (;;) {
                            if ((reach & ring) == ring) { ok = 1; break; }
                            u128 nxt = (reach | (reach << 1) | (reach >> 1)
                                        | (reach << PK_STRIDE) | (reach >> PK_STRIDE)) & left;
                            if (nxt == reach) break;
                            reach = nxt;
                        }
                    }
                }
            }
            o[orient * PK_CELLS + anchor] = ok;
        }
    }
    PyBuffer_Release(&board);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* Placement bitboards: bit c of a u128 is cell c (row-major, stride 10), as board.py's ints. */
#define PK_FULL (((u128)1 << PK_CELLS) - 1)

static u128 pk_col0, pk_not_col0, pk_not_col9, pk_edge;

static void
pk_init_tables(void)
{
    pk_col0 = 0;
    pk_edge = 0;
    for (int r = 0; r < PK_SIZE; r++)
        pk_col0 |= (u128)1 << (r * PK_SIZE);
    pk_not_col0 = PK_FULL & ~pk_col0;
    pk_not_col9 = PK_FULL & ~(pk_col0 << (PK_SIZE - 1));
    for (int c = 0; c < PK_CELLS; c++) {
        int r = c / PK_SIZE, k = c % PK_SIZE;
        if (r == 0 || r == PK_SIZE - 1 || k == 0 || k == PK_SIZE - 1)
            pk_edge |= (u128)1 << c;
    }
}

static inline u128
pk_dilate(u128 s)   /* cells orthogonally next to a cell of s (board.dilate) */
{
    return ((s << 1) & pk_not_col0) | ((s >> 1) & pk_not_col9) | ((s << PK_SIZE) & PK_FULL)
           | (s >> PK_SIZE);
}

static inline void
pk_counts(u128 s, u128 *one, u128 *two)   /* board.neighbour_count_bits */
{
    u128 a = (s << 1) & pk_not_col0, b = (s >> 1) & pk_not_col9;
    u128 c = (s << PK_SIZE) & PK_FULL, d = s >> PK_SIZE;
    *one = a | b | c | d;
    *two = (a & b) | (c & d) | ((a | b) & (c | d));
}

enum {
    PK_PUZZLE = 1, PK_RESTART_ON_EMPTY = 2, PK_TROLL_AFTER_CHASE = 4, PK_GIANT_PAIRS_ONLY = 8,
};

/* pk_placement_bits(board, active, zone, compat, horde, seat, counts, first, flags) -> bytes
 * The PLACE legality of masks.MaskMixin._placement_bits_py as 125 little-endian bytes (bit
 * colour * 100 + cell). compat: the 10 x 12 bool table board.COMPAT; horde: 12 bytes, 1 where a
 * board code (+1) is a Goblin Horde target; active / zone: None or 100-byte arrays. */
static PyObject *
pk_placement_bits(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long seat, flags;
    if (check_nargs(nargs, 9, "pk_placement_bits") < 0 || as_long(args[5], &seat, "seat") < 0
        || as_long(args[8], &flags, "flags") < 0)
        return NULL;
    int first = PyObject_IsTrue(args[7]);
    if (first < 0)
        return NULL;
    PyObject *counts_list = args[6];
    if (!PyList_Check(counts_list) || PyList_GET_SIZE(counts_list) != 10) {
        PyErr_SetString(PyExc_TypeError, "pk_placement_bits: counts must be a list of 10 ints");
        return NULL;
    }
    long counts[10];
    for (int i = 0; i < 10; i++) {
        counts[i] = PyLong_AsLong(PyList_GET_ITEM(counts_list, i));
        if (counts[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_buffer bv, cv, hv, av, zv;
    if (get_buffer(args[0], &bv, PK_CELLS, 0, "board") < 0)
        return NULL;
    if (get_buffer(args[3], &cv, 10 * 12, 0, "compat") < 0) {
        PyBuffer_Release(&bv);
        return NULL;
    }
    if (get_buffer(args[4], &hv, 12, 0, "horde") < 0) {
        PyBuffer_Release(&bv);
        PyBuffer_Release(&cv);
        return NULL;
    }
    const signed char *b = (const signed char *)bv.buf;
    const unsigned char *compat = (const unsigned char *)cv.buf;
    const unsigned char *horde = (const unsigned char *)hv.buf;
    u128 code[12];   /* code[j]: cells holding board code j - 1 */
    memset(code, 0, sizeof code);
    for (int c = 0; c < PK_CELLS; c++) {
        int j = b[c] + 1;
        if (j < 0 || j > 11) {
            PyErr_Format(PyExc_ValueError, "pk_placement_bits: board code %d out of range", b[c]);
            goto fail3;
        }
        code[j] |= (u128)1 << c;
    }
    u128 active = PK_FULL, zone_seat = 0;
    int has_zone = 0;
    if (args[1] != Py_None) {
        if (get_buffer(args[1], &av, PK_CELLS, 0, "active") < 0)
            goto fail3;
        const unsigned char *a = (const unsigned char *)av.buf;
        active = 0;
        for (int c = 0; c < PK_CELLS; c++)
            if (a[c])
                active |= (u128)1 << c;
        PyBuffer_Release(&av);
    }
    if (args[2] != Py_None) {
        if (get_buffer(args[2], &zv, PK_CELLS, 0, "zone") < 0)
            goto fail3;
        const signed char *z = (const signed char *)zv.buf;
        for (int c = 0; c < PK_CELLS; c++)
            if (z[c] == seat)
                zone_seat |= (u128)1 << c;
        PyBuffer_Release(&zv);
        has_zone = 1;
    }
    u128 cubes = 0;
    for (int j = 1; j <= 10; j++)
        cubes |= code[j];
    u128 touch1, touch2;
    pk_counts(cubes, &touch1, &touch2);
    u128 bits[10];
    memset(bits, 0, sizeof bits);
    int any = 0;
    for (int i = 0; i < 10; i++)
        any |= counts[i] != 0;
    if (any) {
        u128 area;
        int need_touch;
        if (flags & PK_PUZZLE) {
            area = active;
            need_touch = 0;
        } else if (first || (cubes == 0 && (flags & PK_RESTART_ON_EMPTY))) {
            if (!has_zone) {
                PyErr_SetString(PyExc_ValueError, "pk_placement_bits: a first cube needs the zones");
                goto fail3;
            }
            u128 edge = pk_edge & zone_seat;
            area = (edge & code[0]) ? edge : zone_seat;
            need_touch = 0;
        } else {
            area = active;
            need_touch = 1;
        }
        u128 empty = code[0] & area;
        if (need_touch)
            empty &= touch1;
        for (int c = 0; c < 8; c++) {   /* PLACEABLE: R O Y G B P K W */
            if (!counts[c])
                continue;
            u128 bad = 0;
            for (int j = 0; j < 12; j++)
                if (!compat[c * 12 + j])
                    bad |= code[j];
            u128 ok = empty & ~pk_dilate(bad);
            if (c == 2) {   /* Giants: next to a Giant, or with a partner from hand */
                u128 company = 0;
                if (!(flags & PK_GIANT_PAIRS_ONLY)) {
                    company = pk_dilate(code[2 + 1]);
                    if (flags & PK_PUZZLE)
                        company |= pk_dilate(code[7 + 1]);
                }
                if (counts[2] >= 2)
                    company |= pk_dilate(code[0] & active & ~pk_dilate(bad));
                ok &= company;
            } else if (c == 1 && !(flags & PK_PUZZLE)) {   /* Trolls */
                u128 one_bad, two_bad;
                pk_counts(bad, &one_bad, &two_bad);
                /* the chased cube may be the only neighbour; a first cube too, in its area */
                if (flags & PK_TROLL_AFTER_CHASE)
                    ok |= empty & one_bad & ~two_bad;
                if (!first) {   /* or replace a cube (a first cube goes on an empty edge cell) */
                    u128 replaceable = code[0 + 1] | code[3 + 1] | code[4 + 1] | code[5 + 1];
                    ok |= replaceable & active & ~one_bad & touch1;
                }
            }
            bits[c] = ok;
        }
        if (!first) {
            if (counts[8]) {   /* Goblin Horde */
                u128 exposed = 0;
                for (int j = 0; j < 12; j++)
                    if (horde[j])
                        exposed |= code[j];
                exposed &= ~pk_dilate(code[7 + 1]);
                bits[8] = code[0] & active & pk_dilate(exposed);
            }
            if (counts[9])   /* Volcanic Eruption */
                bits[9] = code[6 + 1] & active;
        }
    }
    PyBuffer_Release(&bv);
    PyBuffer_Release(&cv);
    PyBuffer_Release(&hv);
    unsigned char raw[125];
    memset(raw, 0, sizeof raw);
    for (int c = 0; c < 10; c++) {
        u128 s = bits[c];
        while (s) {
            int cell = 0;
            u128 low = s & (~s + 1);
            unsigned long long lo = (unsigned long long)low, hi = (unsigned long long)(low >> 64);
            cell = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi);
            int i = c * PK_CELLS + cell;
            raw[i >> 3] |= (unsigned char)(1u << (i & 7));
            s &= s - 1;
        }
    }
    return PyBytes_FromStringAndSize((const char *)raw, sizeof raw);
fail3:
    PyBuffer_Release(&bv);
    PyBuffer_Release(&cv);
    PyBuffer_Release(&hv);
    return NULL;
}

static int
list_item_len(PyObject *list, long i, Py_ssize_t *out, const char *what)
{
    PyObject *item = PyList_GET_ITEM(list, i);
    Py_ssize_t k = PyObject_Length(item);
    if (k < 0) {
        PyErr_Format(PyExc_TypeError, "%s[%ld] has no length", what, i);
        return -1;
    }
    *out = k;
    return 0;
}

static int
list_item_double(PyObject *list, long i, double *out)
{
    double x = PyFloat_AsDouble(PyList_GET_ITEM(list, i));
    if (x == -1.0 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

/* pk_observe(obs, planes, template, active, pending_cell, seat, n, shown, hands, captured,
 *            first_done, out, allot, scores, peaks, reserve, bag, discard, phase, ranges,
 *            end_code, pending_optional, board, zone, penalty)
 * fills the float32 observation ``obs`` exactly as envs/peacekeepers/observe.py's Python path
 * (the layout table is there). Lists are the state's own (read only). ``scores`` None: the
 * Multi-Player Competitive scores from board, zone, captured and penalty (rules._scores). */
static PyObject *
pk_observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs(nargs, 25, "pk_observe") < 0)
        return NULL;
    long pending, seat, n, shown, phase, end_code;
    if (as_long(args[4], &pending, "pending_cell") < 0 || as_long(args[5], &seat, "seat") < 0
        || as_long(args[6], &n, "n") < 0 || as_long(args[7], &shown, "shown") < 0
        || as_long(args[18], &phase, "phase") < 0 || as_long(args[20], &end_code, "end_code") < 0)
        return NULL;
    if (n < 1 || n > 4 || seat < 0 || seat >= n || pending < -1 || pending >= PK_CELLS
        || phase < 0 || phase > 8) {
        PyErr_SetString(PyExc_ValueError, "pk_observe: seat, n, pending_cell or phase out of range");
        return NULL;
    }
    PyObject *hands = args[8], *captured = args[9], *first_done = args[10], *outl = args[11];
    PyObject *allot = args[12], *scores = args[13], *peaks = args[14];
    PyObject *penalty = args[24];
    double comp[4] = {0.0, 0.0, 0.0, 0.0};
    int own_scores = scores == Py_None;
    if (own_scores)
        scores = penalty;   /* checked as a per-seat list below; the scores are computed here */
    PyObject *seq[] = {hands, captured, first_done, outl, allot, scores, peaks};
    for (int i = 0; i < 7; i++) {
        if (!PyList_Check(seq[i]) || PyList_GET_SIZE(seq[i]) < n) {
            PyErr_SetString(PyExc_TypeError, "pk_observe: per-seat values must be lists of n items");
            return NULL;
        }
    }
    Py_ssize_t reserve_len = PyObject_Length(args[15]), bag_len = PyObject_Length(args[16]);
    Py_ssize_t discard_len = PyObject_Length(args[17]), ranges_len = PyObject_Length(args[19]);
    if (reserve_len < 0 || bag_len < 0 || discard_len < 0 || ranges_len < 0)
        return NULL;
    int optional = PyObject_IsTrue(args[21]);
    if (optional < 0)
        return NULL;
    double range0 = 0.0;
    if (ranges_len > 0) {
        PyObject *first = PySequence_GetItem(args[19], 0);
        if (first == NULL)
            return NULL;
        range0 = PyFloat_AsDouble(first);
        Py_DECREF(first);
        if (range0 == -1.0 && PyErr_Occurred())
            return NULL;
    }

    if (own_scores) {   /* captured - empty cells left in the zone - penalty (+5 when full) */
        Py_buffer bb, zb;
        if (get_buffer(args[22], &bb, PK_CELLS, 0, "board") < 0)
            return NULL;
        if (get_buffer(args[23], &zb, PK_CELLS, 0, "zone") < 0) {
            PyBuffer_Release(&bb);
            return NULL;
        }
        const signed char *b = bb.buf, *z = zb.buf;
        if (z[0] >= 0) {
            long empty[4] = {0, 0, 0, 0};
            for (int c = 0; c < PK_CELLS; c++)
                if (b[c] == PK_EMPTY && z[c] >= 0 && z[c] < n)
                    empty[(int)z[c]]++;
            for (long s = 0; s < n; s++) {
                Py_ssize_t ncap;
                double pen;
                if (list_item_len(captured, s, &ncap, "captured") < 0
                    || list_item_double(penalty, s, &pen) < 0) {
                    PyBuffer_Release(&bb);
                    PyBuffer_Release(&zb);
                    return NULL;
                }
                comp[s] = (double)ncap - (double)empty[s] - pen + (empty[s] == 0 ? 5.0 : 0.0);
            }
        }
        PyBuffer_Release(&bb);
        PyBuffer_Release(&zb);
    }
    double v[PK_VECTOR];
    memset(v, 0, sizeof v);
    for (long rel = 0; rel < n; rel++) {
        long s = seat + rel;
        if (s >= n)
            s -= n;
        PyObject *hand = PyList_GET_ITEM(hands, s);
        if (!PyList_Check(hand)) {
            PyErr_SetString(PyExc_TypeError, "pk_observe: a hand must be a list");
            return NULL;
        }
        Py_ssize_t k = PyList_GET_SIZE(hand);
        v[40 + rel] = k >= 20 ? 1.0 : k / 20.0;
        if (rel < shown && k) {
            long base = rel * 10;
            for (Py_ssize_t i = 0; i < k; i++) {
                PyObject *cube = PyList_GET_ITEM(hand, i);
                if (!PyTuple_Check(cube) || PyTuple_GET_SIZE(cube) != 2) {
                    PyErr_SetString(PyExc_TypeError, "pk_observe: a hand holds (cube, face) tuples");
                    return NULL;
                }
                long f = PyLong_AsLong(PyTuple_GET_ITEM(cube, 1));
                if (f < 0 || f > 9) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_ValueError, "pk_observe: a face must be 0..9");
                    return NULL;
                }
                v[base + f] += 1.0;
            }
            for (long i = base; i < base + 10; i++)
                if (v[i] != 0.0)
                    v[i] = v[i] >= 10.0 ? 1.0 : v[i] / 10.0;
        }
        Py_ssize_t ncap;
        if (list_item_len(captured, s, &ncap, "captured") < 0)
            return NULL;
        v[47 + rel] = ncap / 100.0;
        int t = PyObject_IsTrue(PyList_GET_ITEM(first_done, s));
        if (t < 0)
            return NULL;
        if (t)
            v[61 + rel] = 1.0;
        t = PyObject_IsTrue(PyList_GET_ITEM(outl, s));
        if (t < 0)
            return NULL;
        if (t)
            v[65 + rel] = 1.0;
        double a, x, p;
        if (list_item_double(allot, s, &a) < 0 || list_item_double(peaks, s, &p) < 0)
            return NULL;
        if (own_scores)
            x = comp[s];
        else if (list_item_double(scores, s, &x) < 0)
            return NULL;
        if (a != 0.0)
            v[69 + rel] = a >= 10.0 ? 1.0 : a / 10.0;
        x /= 100.0;
        v[75 + rel] = x < -1.0 ? -1.0 : (x > 1.0 ? 1.0 : x);
        v[80 + rel] = p / 30.0;
    }
    v[44] = (double)reserve_len;
    v[45] = bag_len / 100.0;
    v[46] = discard_len / 100.0;
    v[51 + phase] = 1.0;
    if (ranges_len > 0)
        v[60] = range0 / 6.0;
    if (end_code == 1)
        v[73] = 1.0;
    else if (end_code == 2)
        v[74] = 1.0;
    if (optional)
        v[79] = 1.0;

    Py_buffer obs, planes, tmpl, active;
    if (get_buffer(args[0], &obs, PK_OBS_FLOATS * 4, 1, "obs") < 0)
        return NULL;
    if (get_buffer(args[1], &planes, PK_CODE_FLOATS * 4, 0, "planes") < 0) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    if (get_buffer(args[2], &tmpl, (PK_BOARD_FLOATS - PK_CODE_FLOATS) * 4, 0, "template") < 0) {
        PyBuffer_Release(&obs);
        PyBuffer_Release(&planes);
        return NULL;
    }
    int has_active = args[3] != Py_None;
    if (has_active && get_buffer(args[3], &active, PK_CELLS, 0, "active") < 0) {
        PyBuffer_Release(&obs);
        PyBuffer_Release(&planes);
        PyBuffer_Release(&tmpl);
        return NULL;
    }
    float *o = (float *)obs.buf;
    memcpy(o, planes.buf, PK_CODE_FLOATS * sizeof(float));
    memcpy(o + PK_CODE_FLOATS, tmpl.buf, (PK_BOARD_FLOATS - PK_CODE_FLOATS) * sizeof(float));
    if (has_active) {  /* plane 11 (empty cells) only inside the field */
        const unsigned char *act = (const unsigned char *)active.buf;
        for (int c = 0; c < PK_CELLS; c++)
            o[11 * PK_CELLS + c] *= (float)(act[c] != 0);
        PyBuffer_Release(&active);
    }
    if (pending >= 0)
        o[16 * PK_CELLS + pending] = 1.0f;
    for (int i = 0; i < PK_VECTOR; i++)
        o[PK_BOARD_FLOATS + i] = (float)v[i];
    PyBuffer_Release(&obs);
    PyBuffer_Release(&planes);
    PyBuffer_Release(&tmpl);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ module ------------- */

static PyMethodDef methods[] = {
    {"unpack_bits", (PyCFunction)(void (*)(void))unpack_bits, METH_FASTCALL,
     "unpack_bits(raw, out): out[i] = bit i of the little-endian bytes raw."},
    {"pk_mountains", (PyCFunction)(void (*)(void))pk_mountains, METH_FASTCALL,
     "pk_mountains(board, length, out): Peacekeepers mountain-range legality (200 entries)."},
    {"pk_placement_bits", (PyCFunction)(void (*)(void))pk_placement_bits, METH_FASTCALL,
     "pk_placement_bits(...) -> bytes: Peacekeepers PLACE legality (see masks.py)."},
    {"pk_observe", (PyCFunction)(void (*)(void))pk_observe, METH_FASTCALL,
     "pk_observe(...): fill a Peacekeepers observation (see envs/peacekeepers/observe.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "envs._accel",
    "Optional compiled kernels for the engines' hot spots (pure-Python twins are the reference).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    pk_init_tables();
    PyObject *m = PyModule_Create(&module);
    /* bump with any change of a kernel's arguments or results (envs/core/accel.py checks it, so
     * an extension built from an older checkout is not used) */
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", 5) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
