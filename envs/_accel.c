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
            } else if (c == 1 && !(flags & PK_PUZZLE) && !first) {   /* Trolls */
                u128 one_bad, two_bad;
                pk_counts(bad, &one_bad, &two_bad);
                if (flags & PK_TROLL_AFTER_CHASE)   /* the chased cube may be the only neighbour */
                    ok |= code[0] & active & one_bad & ~two_bad;
                u128 replaceable = code[0 + 1] | code[3 + 1] | code[4 + 1] | code[5 + 1];
                ok |= replaceable & active & ~one_bad & touch1;
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

/* ------------------------------------------------------------------ Warbah ------------- */

typedef struct {
    Py_buffer v;
    int held;
} Buf;

static void
release_all(Buf *b, int k)
{
    for (int i = 0; i < k; i++)
        if (b[i].held) {
            PyBuffer_Release(&b[i].v);
            b[i].held = 0;
        }
}

/* A read-only buffer of ``count`` items of ``itemsize`` bytes (int64 arrays: 8, bool: 1). */
static int
get_typed(PyObject *obj, Buf *b, Py_ssize_t count, Py_ssize_t itemsize, const char *what)
{
    if (get_buffer(obj, &b->v, -1, 0, what) < 0)
        return -1;
    b->held = 1;
    if (b->v.itemsize != itemsize || b->v.len != count * itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: expected %zd items of %zd bytes", what, count, itemsize);
        return -1;
    }
    return 0;
}

#define WB_ARGS 23

/* wb_observe_base(out, n, N, seat, land, explored, terrain, settle, wall_damage, terrain_walls,
 *                 settle_walls, settle_code, same_side_walls, river_planes, river_adj, bonus_walls,
 *                 variant, variant_value, owner, encounter, alive, garrison, gsp)
 * writes the array-derived parts of a Warbah observation into ``out`` (float32, zeroed by the
 * caller): board planes 0-5, 8-11, 13-16 and vector entries 32-39, with the values of
 * envs/warbah/observe.py's Python path (_map_base, _build_owned, _garrisons). int64 arrays,
 * bool land / explored / alive / river_adj, float32 river planes (3 x n); bonus_walls: dict
 * cell -> walls; variant: list of names ('' none); variant_value: dict name -> plane value. */
static PyObject *
wb_observe_base(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long n, N, seat, set_code, same_side;
    if (check_nargs(nargs, WB_ARGS, "wb_observe_base") < 0 || as_long(args[1], &n, "n") < 0
        || as_long(args[2], &N, "N") < 0 || as_long(args[3], &seat, "seat") < 0
        || as_long(args[11], &set_code, "settle_code") < 0
        || as_long(args[12], &same_side, "same_side_walls") < 0)
        return NULL;
    if (n < 1 || N < 1 || N > 4 || seat < 0 || seat >= N) {
        PyErr_SetString(PyExc_ValueError, "wb_observe_base: n, N or seat out of range");
        return NULL;
    }
    PyObject *bonus = args[15], *variant = args[16], *vvalue = args[17];
    if (!PyDict_Check(bonus) || !PyList_Check(variant) || PyList_GET_SIZE(variant) != n
        || !PyDict_Check(vvalue)) {
        PyErr_SetString(PyExc_TypeError, "wb_observe_base: bonus walls and variant values must be "
                        "dicts, the variant a list of n names");
        return NULL;
    }
    enum { OUT, LAND, EXPL, TER, SET, WD, TW, SW, RIV, ADJ, OWN, ENC, ALIVE, GAR, GSP, NB };
    Buf b[NB];
    memset(b, 0, sizeof b);
    if (get_buffer(args[0], &b[OUT].v, -1, 1, "out") < 0)
        return NULL;
    b[OUT].held = 1;
    Py_ssize_t size = b[OUT].v.len / 4;
    if (b[OUT].v.itemsize != 4 || size < 17 * n + 48) {
        PyErr_SetString(PyExc_TypeError, "wb_observe_base: out must be float32 of the observation size");
        goto fail;
    }
    if (get_typed(args[4], &b[LAND], n, 1, "land") < 0 || get_typed(args[5], &b[EXPL], n, 1, "explored") < 0
        || get_typed(args[6], &b[TER], n, 8, "terrain") < 0 || get_typed(args[7], &b[SET], n, 8, "settle") < 0
        || get_typed(args[8], &b[WD], n, 8, "wall_damage") < 0
        || get_buffer(args[9], &b[TW].v, -1, 0, "terrain_walls") < 0 || !(b[TW].held = 1)
        || get_buffer(args[10], &b[SW].v, -1, 0, "settle_walls") < 0 || !(b[SW].held = 1)
        || get_typed(args[13], &b[RIV], 3 * n, 4, "river_planes") < 0
        || get_typed(args[14], &b[ADJ], n, 1, "river_adj") < 0
        || get_typed(args[18], &b[OWN], n, 8, "owner") < 0
        || get_typed(args[19], &b[ENC], n, 8, "encounter") < 0
        || get_typed(args[20], &b[ALIVE], N, 1, "alive") < 0)
        goto fail;
    if (b[TW].v.itemsize != 8 || b[SW].v.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "wb_observe_base: wall tables must be int64");
        goto fail;
    }
    if (get_buffer(args[21], &b[GAR].v, -1, 0, "garrison") < 0)
        goto fail;
    b[GAR].held = 1;
    if (get_buffer(args[22], &b[GSP].v, -1, 0, "gsp") < 0)
        goto fail;
    b[GSP].held = 1;
    if (b[GAR].v.itemsize != 8 || b[GSP].v.itemsize != 8 || b[GAR].v.len % (8 * n)
        || b[GSP].v.len % (8 * n)) {
        PyErr_SetString(PyExc_TypeError, "wb_observe_base: garrison and gsp must be int64 (n, k)");
        goto fail;
    }
    Py_ssize_t ntw = b[TW].v.len / 8, nsw = b[SW].v.len / 8;
    Py_ssize_t kg = b[GAR].v.len / (8 * n), ks = b[GSP].v.len / (8 * n);
    float *o = (float *)b[OUT].v.buf;
    const unsigned char *land = b[LAND].v.buf, *expl = b[EXPL].v.buf, *adj = b[ADJ].v.buf;
    const unsigned char *alive = b[ALIVE].v.buf;
    const long long *ter = b[TER].v.buf, *set = b[SET].v.buf, *wd = b[WD].v.buf;
    const long long *tw = b[TW].v.buf, *sw = b[SW].v.buf, *own = b[OWN].v.buf, *enc = b[ENC].v.buf;
    const long long *gar = b[GAR].v.buf, *gsp = b[GSP].v.buf;
    const float *riv = b[RIV].v.buf;
    int has_bonus = PyDict_GET_SIZE(bonus) > 0;
    long held[4] = {0, 0, 0, 0};
    for (long x = 0; x < n; x++) {
        long long t = ter[x], s = set[x];
        o[x] = land[x] ? 1.0f : 0.0f;
        o[n + x] = expl[x] ? 1.0f : 0.0f;
        o[2 * n + x] = t >= 0 ? (float)((t + 1) / 7.0) : 0.0f;
        o[3 * n + x] = s >= 0 ? (float)((s + 1) / 7.0) : 0.0f;
        for (int d = 0; d < 3; d++)
            o[(13 + d) * n + x] = riv[d * n + x];
        if (expl[x]) {
            long long w = 0;
            if (t >= 0) {
                if (t >= ntw) goto bad_index;
                w = tw[t];
            }
            if (t == set_code) {
                long long k = s > 0 ? s : 0;
                if (k >= nsw) goto bad_index;
                w = sw[k];
            }
            if (adj[x] && w < same_side)
                w = same_side;
            w -= wd[x];
            if (w < 0)
                w = 0;
            if (has_bonus) {
                PyObject *key = PyLong_FromLong(x);
                if (key == NULL)
                    goto fail;
                PyObject *extra = PyDict_GetItemWithError(bonus, key);
                Py_DECREF(key);
                if (extra == NULL && PyErr_Occurred())
                    goto fail;
                if (extra != NULL) {
                    long e = PyLong_AsLong(extra);
                    if (e == -1 && PyErr_Occurred())
                        goto fail;
                    w += e;
                }
            }
            o[11 * n + x] = (float)((w < 8 ? w : 8) / 8.0);
            PyObject *name = PyList_GET_ITEM(variant, x);
            int named = PyObject_IsTrue(name);
            if (named < 0)
                goto fail;
            if (named) {
                PyObject *val = PyDict_GetItemWithError(vvalue, name);
                if (val == NULL) {
                    if (!PyErr_Occurred())
                        PyErr_Format(PyExc_KeyError, "unknown terrain variant %R", name);
                    goto fail;
                }
                double vv = PyFloat_AsDouble(val);
                if (vv == -1.0 && PyErr_Occurred())
                    goto fail;
                o[16 * n + x] = (float)vv;
            }
        }
        long long ow = own[x];
        if (ow >= 0) {
            if (ow >= N) goto bad_index;
            if (ow == seat)
                o[4 * n + x] = 1.0f;
            else
                o[5 * n + x] = (float)((double)(((ow - seat) % N + N) % N) / N);
            if (s >= 0)
                held[ow]++;
        }
        if (enc[x] != 0)
            o[8 * n + x] = 1.0f;
        long long tot = 0;
        for (Py_ssize_t k = 0; k < kg; k++)
            tot += gar[x * kg + k];
        for (Py_ssize_t k = 0; k < ks; k++)
            tot += gsp[x * ks + k];
        if (tot != 0)
            o[(ow == seat ? 9 : 10) * n + x] = (float)((tot < 20 ? tot : 20) / 20.0);
    }
    long vo = 17 * n;
    for (long s = 0; s < N; s++) {
        long rel = ((s - seat) % N + N) % N;
        if (alive[s])
            o[vo + 32 + rel] = 1.0f;
        if (held[s])
            o[vo + 36 + rel] = (float)((held[s] < 20 ? held[s] : 20) / 20.0);
    }
    release_all(b, NB);
    Py_RETURN_NONE;
bad_index:
    PyErr_SetString(PyExc_ValueError, "wb_observe_base: a terrain, settlement or owner code is out of range");
fail:
    release_all(b, NB);
    return NULL;
}

static PyObject *k_alive, *k_cell, *k_seat, *k_troops, *k_mp, *k_xp, *k_abil, *k_sides,
    *k_counts, *k_monster;

static int
intern_keys(void)
{
    const char *names[] = {"alive", "cell", "seat", "troops", "mp", "xp", "abil", "sides",
                           "counts", "monster"};
    PyObject **slots[] = {&k_alive, &k_cell, &k_seat, &k_troops, &k_mp, &k_xp, &k_abil,
                          &k_sides, &k_counts, &k_monster};
    for (int i = 0; i < 10; i++) {
        *slots[i] = PyUnicode_InternFromString(names[i]);
        if (*slots[i] == NULL)
            return -1;
    }
    return 0;
}

/* d[key] (borrowed); a KeyError naming the key when absent */
static PyObject *
dict_get(PyObject *d, PyObject *key)
{
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict");
        return NULL;
    }
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (v == NULL && !PyErr_Occurred())
        PyErr_SetObject(PyExc_KeyError, key);
    return v;
}

static int
dict_long(PyObject *d, PyObject *key, long *out)
{
    PyObject *v = dict_get(d, key);
    if (v == NULL)
        return -1;
    *out = PyLong_AsLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int
dict_double(PyObject *d, PyObject *key, double *out)
{
    PyObject *v = dict_get(d, key);
    if (v == NULL)
        return -1;
    *out = PyFloat_AsDouble(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* the first ``k`` int64 entries of an array-like (a Hero's troops, a battle side's counts) */
static int
read_int64s(PyObject *obj, long long *dst, Py_ssize_t k, Py_ssize_t *len_out, const char *what)
{
    Py_buffer v;
    if (get_buffer(obj, &v, -1, 0, what) < 0)
        return -1;
    Py_ssize_t len = v.len / 8;
    if (v.itemsize != 8 || len < k) {
        PyErr_Format(PyExc_TypeError, "%s: expected at least %zd int64 items", what, k);
        PyBuffer_Release(&v);
        return -1;
    }
    memcpy(dst, v.buf, (size_t)k * 8);
    if (len_out)
        *len_out = len;
    PyBuffer_Release(&v);
    return 0;
}

static inline double
cap_div(double x, double cap)   /* min(x, cap) / cap, as the Python code writes it */
{
    return (x < cap ? x : cap) / cap;
}

/* wb_observe_main(out, n, seat, heroes, acting, candidates, phase_index, turn, turn_cap, gold,
 *                 battle, ships, fleet_owner, fleet_offset, abil_index, abil_steps)
 *   -> (occ, my_heroes, my_fleets)
 * The rest of observe.py's own part of a Warbah observation after wb_observe_base: hero planes
 * 6-7, the acting Hero (plane 12) or the capitol candidates, vector 0-31 and 40-47, and the
 * fleet planes 0-1 of the block B section at ``fleet_offset``; returns the cells of the living
 * Heroes (set), my living Heroes (list, in order) and my fleet cells (list, cell order) for
 * block_b.observe_b and spells.observe. ``acting``: the Hero acting now for ``seat`` or None;
 * ``candidates``: [(cell, value)] in the capitol phase, else None; ``phase_index``: -1 for the
 * block phases. */
static PyObject *
wb_observe_main(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long n, seat, phase_index, turn, turn_cap, gold, fo;
    if (check_nargs(nargs, 16, "wb_observe_main") < 0 || as_long(args[1], &n, "n") < 0
        || as_long(args[2], &seat, "seat") < 0 || as_long(args[6], &phase_index, "phase_index") < 0
        || as_long(args[7], &turn, "turn") < 0 || as_long(args[8], &turn_cap, "turn_cap") < 0
        || as_long(args[9], &gold, "gold") < 0 || as_long(args[13], &fo, "fleet_offset") < 0)
        return NULL;
    PyObject *heroes = args[3], *acting = args[4], *cands = args[5], *battle = args[10];
    PyObject *abil_index = args[14], *abil_steps = args[15];
    if (!PyList_Check(heroes) || !PyDict_Check(abil_index) || !PyList_Check(abil_steps)
        || PyList_GET_SIZE(abil_steps) < 1 || turn_cap <= 0 || n < 1) {
        PyErr_SetString(PyExc_TypeError, "wb_observe_main: bad heroes, ability tables or sizes");
        return NULL;
    }
    Py_buffer ob, sb, fb;
    if (get_buffer(args[0], &ob, -1, 1, "out") < 0)
        return NULL;
    Py_ssize_t size = ob.len / 4;
    if (ob.itemsize != 4 || size < 17 * n + 48 || fo < 17 * n + 48 || fo + 2 * n > size) {
        PyErr_SetString(PyExc_ValueError, "wb_observe_main: out too small for the layout");
        PyBuffer_Release(&ob);
        return NULL;
    }
    if (get_buffer(args[11], &sb, n * 8, 0, "ships") < 0) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    if (get_buffer(args[12], &fb, n * 8, 0, "fleet_owner") < 0) {
        PyBuffer_Release(&ob);
        PyBuffer_Release(&sb);
        return NULL;
    }
    float *o = (float *)ob.buf;
    const long long *ships = sb.buf, *fown = fb.buf;
    PyObject *occ = PySet_New(NULL), *mine = PyList_New(0), *fleets = PyList_New(0);
    if (occ == NULL || mine == NULL || fleets == NULL)
        goto fail;
    long vo = 17 * n;
    /* heroes: planes 6 (mine) and 7 (others) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(heroes); i++) {
        PyObject *h = PyList_GET_ITEM(heroes, i);
        PyObject *alive = dict_get(h, k_alive);
        if (alive == NULL)
            goto fail;
        int t = PyObject_IsTrue(alive);
        if (t < 0)
            goto fail;
        if (!t)
            continue;
        long x, s;
        if (dict_long(h, k_cell, &x) < 0 || dict_long(h, k_seat, &s) < 0)
            goto fail;
        if (x < 0 || x >= n) {
            PyErr_SetString(PyExc_ValueError, "wb_observe_main: a Hero's cell is off the map");
            goto fail;
        }
        PyObject *cell = PyLong_FromLong(x);
        if (cell == NULL || PySet_Add(occ, cell) < 0) {
            Py_XDECREF(cell);
            goto fail;
        }
        Py_DECREF(cell);
        if (s == seat) {
            o[6 * n + x] = 1.0f;
            if (PyList_Append(mine, h) < 0)
                goto fail;
        } else {
            o[7 * n + x] = 1.0f;
        }
    }
    if (acting != Py_None) {
        long x;
        if (dict_long(acting, k_cell, &x) < 0)
            goto fail;
        if (x < 0 || x >= n) {
            PyErr_SetString(PyExc_ValueError, "wb_observe_main: the acting Hero's cell is off the map");
            goto fail;
        }
        o[12 * n + x] = 1.0f;
    } else if (cands != Py_None) {
        if (!PyList_Check(cands)) {
            PyErr_SetString(PyExc_TypeError, "wb_observe_main: candidates must be a list");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(cands); i++) {
            long cell;
            double val;
            PyObject *pair = PyList_GET_ITEM(cands, i);
            if (!PyArg_ParseTuple(pair, "ld", &cell, &val))
                goto fail;
            if (cell < 0 || cell >= n) {
                PyErr_SetString(PyExc_ValueError, "wb_observe_main: a candidate is off the map");
                goto fail;
            }
            o[12 * n + cell] = (float)val;
        }
    }
    if (phase_index >= 0 && phase_index < 7)
        o[vo + phase_index] = 1.0f;
    {
        double tf = (double)turn / (double)turn_cap;
        o[vo + 7] = (float)(tf < 1.0 ? tf : 1.0);
    }
    o[vo + 8] = (float)cap_div((double)gold, 50.0);
    if (acting != Py_None) {
        long long tr[4];
        PyObject *troops = dict_get(acting, k_troops);
        if (troops == NULL || read_int64s(troops, tr, 4, NULL, "troops") < 0)
            goto fail;
        for (int t = 0; t < 4; t++)
            if (tr[t])
                o[vo + 9 + t] = (float)cap_div((double)tr[t], 40.0);
        double mp, xp;
        if (dict_double(acting, k_mp, &mp) < 0 || dict_double(acting, k_xp, &xp) < 0)
            goto fail;
        o[vo + 13] = (float)cap_div(mp, 8.0);
        o[vo + 14] = (float)cap_div(xp, 2.0);
        PyObject *abil = dict_get(acting, k_abil);
        if (abil == NULL)
            goto fail;
        if (!PyList_Check(abil)) {
            PyErr_SetString(PyExc_TypeError, "wb_observe_main: abilities must be a list");
            goto fail;
        }
        long counts[64];
        memset(counts, 0, sizeof counts);
        Py_ssize_t nsteps = PyList_GET_SIZE(abil_steps);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(abil); i++) {
            PyObject *entry = PyList_GET_ITEM(abil, i);
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 1) {
                PyErr_SetString(PyExc_TypeError, "wb_observe_main: an ability is a (name, ...) tuple");
                goto fail;
            }
            PyObject *idx = PyDict_GetItemWithError(abil_index, PyTuple_GET_ITEM(entry, 0));
            if (idx == NULL) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "unknown ability %R", PyTuple_GET_ITEM(entry, 0));
                goto fail;
            }
            long k = PyLong_AsLong(idx);
            if (k < 0 || k >= 64 || vo + 15 + k >= vo + 32) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "wb_observe_main: ability index out of range");
                goto fail;
            }
            counts[k]++;
        }
        for (long k = 0; k < 64; k++) {
            if (!counts[k])
                continue;
            Py_ssize_t j = counts[k] < nsteps - 1 ? counts[k] : nsteps - 1;
            double step = PyFloat_AsDouble(PyList_GET_ITEM(abil_steps, j));
            if (step == -1.0 && PyErr_Occurred())
                goto fail;
            o[vo + 15 + k] = (float)step;
        }
    }
    if (battle != Py_None) {
        PyObject *sides = dict_get(battle, k_sides);
        if (sides == NULL)
            goto fail;
        if (!PyList_Check(sides) || PyList_GET_SIZE(sides) < 2) {
            PyErr_SetString(PyExc_TypeError, "wb_observe_main: a battle has two sides");
            goto fail;
        }
        int me = -1;
        for (int k = 0; k < 2 && me < 0; k++) {
            long s;
            if (dict_long(PyList_GET_ITEM(sides, k), k_seat, &s) < 0)
                goto fail;
            if (s == seat)
                me = k;
        }
        if (me >= 0) {
            PyObject *mside = PyList_GET_ITEM(sides, me), *fside = PyList_GET_ITEM(sides, 1 - me);
            long long mc[5], fc[5];
            PyObject *mco = dict_get(mside, k_counts), *fco;
            if (mco == NULL || read_int64s(mco, mc, 5, NULL, "counts") < 0)
                goto fail;
            fco = dict_get(fside, k_counts);
            if (fco == NULL || read_int64s(fco, fc, 5, NULL, "counts") < 0)
                goto fail;
            for (int t = 0; t < 5; t++)
                o[vo + 40 + t] = (float)((double)(mc[t] < 40 ? mc[t] : 40) / 40.0);
            o[vo + 45] = (float)cap_div((double)(fc[0] + fc[1] + fc[2] + fc[3]), 40.0);
            o[vo + 46] = fc[4] > 0 ? 1.0f : 0.0f;
            PyObject *mon = dict_get(fside, k_monster);
            if (mon == NULL)
                goto fail;
            if (mon != Py_None) {
                PyObject *hits = PySequence_GetItem(mon, 2);
                if (hits == NULL)
                    goto fail;
                double hv = PyFloat_AsDouble(hits);
                Py_DECREF(hits);
                if (hv == -1.0 && PyErr_Occurred())
                    goto fail;
                o[vo + 47] = (float)cap_div(hv, 10.0);
            }
        }
    }
    /* fleets: block B planes 0 (mine) and 1 (others), ships/10 */
    for (long c = 0; c < n; c++) {
        if (ships[c] == 0)
            continue;
        float val = (float)cap_div((double)ships[c], 10.0);
        if (fown[c] == seat) {
            o[fo + c] = val;
            PyObject *cell = PyLong_FromLong(c);
            if (cell == NULL || PyList_Append(fleets, cell) < 0) {
                Py_XDECREF(cell);
                goto fail;
            }
            Py_DECREF(cell);
        } else {
            o[fo + n + c] = val;
        }
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&fb);
    PyObject *res = PyTuple_Pack(3, occ, mine, fleets);
    Py_DECREF(occ);
    Py_DECREF(mine);
    Py_DECREF(fleets);
    return res;
fail:
    PyBuffer_Release(&ob);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&fb);
    Py_XDECREF(occ);
    Py_XDECREF(mine);
    Py_XDECREF(fleets);
    return NULL;
}

/* ------------------------------------------------------------------ module ------------- */

static PyMethodDef methods[] = {
    {"unpack_bits", (PyCFunction)(void (*)(void))unpack_bits, METH_FASTCALL,
     "unpack_bits(raw, out): out[i] = bit i of the little-endian bytes raw."},
    {"pk_mountains", (PyCFunction)(void (*)(void))pk_mountains, METH_FASTCALL,
     "pk_mountains(board, length, out): Peacekeepers mountain-range legality (200 entries)."},
    {"pk_placement_bits", (PyCFunction)(void (*)(void))pk_placement_bits, METH_FASTCALL,
     "pk_placement_bits(...) -> bytes: Peacekeepers PLACE legality (see masks.py)."},
    {"wb_observe_base", (PyCFunction)(void (*)(void))wb_observe_base, METH_FASTCALL,
     "wb_observe_base(...): the array-derived planes of a Warbah observation (see observe.py)."},
    {"wb_observe_main", (PyCFunction)(void (*)(void))wb_observe_main, METH_FASTCALL,
     "wb_observe_main(...) -> (occ, my_heroes, my_fleets): the rest of observe.py's part."},
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
    if (intern_keys() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    /* bump with any change of a kernel's arguments or results (envs/core/accel.py checks it, so
     * an extension built from an older checkout is not used) */
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", 3) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
