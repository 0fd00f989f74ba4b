/* Memory safety: compute-sanitizer's memcheck, racecheck and initcheck on a candidate's
 * benchmark program, judged from the tool's exit status and its first finding. The text
 * formats are the ones Compute Sanitizer 2025.3 (CUDA 13.0) prints, recorded on an H200
 * (tests/data/sanitize/), with the CUDA 11 location form tolerated. docs/sanitizer.md. */
#include "measure/sanitize.h"

#include "core/i18n.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"
#include "measure/harness.h"

#define PREFIX "========="
/* the tool results' and the findings' sentences: stored in English with the version (a
 * rejection's details), said again where shown (hk_tr_said, docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)
#define OUTPUT_MAX ((size_t)1 << 20) /* per stream: --print-limit 1 keeps the tool's part small */

static const char *const tool_names[SANITIZE_N_TOOLS] = {"memcheck", "racecheck", "initcheck"};

/* --check-exit-code no: a failing program is not one more "error" of the tool, so exit 86
 * means a finding only. --print-limit 1: the first finding is all the verdict quotes, and
 * printing thousands costs minutes. --report-api-errors no: a CUDA call that fails is the
 * harness's to report (as cuda_error), not a memory-safety finding. No --padding (session
 * 38): it moved every allocation after the first under memcheck alone, a layout a kernel
 * could tell from every other run's; the harness's guard zones, declared to the tool as
 * outside the buffer (SANITIZE_GUARD_ENV), do its work: an overrun crosses its own buffer's
 * 64 KiB zone and the next buffer's leading one before it reaches other data.
 * racecheck keeps its default --racecheck-report analysis: the hazard report ran past
 * 300 s on a 1M-element reduction where the analysis took 7 s. */
static const char *const memcheck_flags[] = {
    "--tool", "memcheck", "--leak-check", "no",
    "--report-api-errors", "no", "--error-exitcode", "86", "--check-exit-code", "no",
    "--print-limit", "1", NULL};
static const char *const racecheck_flags[] = {
    "--tool", "racecheck", "--error-exitcode", "86", "--check-exit-code", "no",
    "--print-limit", "1", NULL};
static const char *const initcheck_flags[] = {
    "--tool", "initcheck", "--error-exitcode", "86", "--check-exit-code", "no",
    "--print-limit", "1", NULL};

const char *sanitize_tool_name(enum sanitize_tool t)
{
    return (unsigned)t < SANITIZE_N_TOOLS ? tool_names[t] : "?";
}

enum measure_reason sanitize_tool_reason(enum sanitize_tool t)
{
    switch (t) {
    case SANITIZE_RACECHECK: return MEASURE_RACE;
    case SANITIZE_INITCHECK: return MEASURE_UNINITIALIZED;
    default: return MEASURE_OUT_OF_BOUNDS;
    }
}

const char *const *sanitize_tool_flags(enum sanitize_tool t)
{
    switch (t) {
    case SANITIZE_RACECHECK: return racecheck_flags;
    case SANITIZE_INITCHECK: return initcheck_flags;
    default: return memcheck_flags;
    }
}

/* ---- the tool's text ---- */

/* Appends s (n bytes) to dst of size cap, cutting at the end; dst stays NUL-terminated. */
static void append(char *dst, size_t cap, const char *s, size_t n)
{
    size_t have = strlen(dst);
    if (have + 1 >= cap)
        return;
    if (n > cap - 1 - have)
        n = cap - 1 - have;
    memcpy(dst + have, s, n);
    dst[have + n] = '\0';
}

static bool starts_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* "N" at s; -1 when s holds no number. Thousands separators are skipped. */
static long number_at(const char *s)
{
    long v = 0;
    bool any = false;
    for (; *s == ',' || isdigit((unsigned char)*s); s++)
        if (*s != ',') {
            v = v * 10 + (*s - '0');
            any = true;
            if (v > 100000000L)
                break;
        }
    return any ? v : -1;
}

/* The summary line: "ERROR SUMMARY: 3 errors" or "RACECHECK SUMMARY: 1 hazard displayed (1
 * error, 5 warnings)" (its errors plus warnings: the tool's exit status counts both). -2
 * when body is not a summary; -1 for the second line the tool prints past its print limit,
 * "ERROR SUMMARY: 157 errors were not printed. Use --print-limit ...", which counts no more
 * errors (the first line counts them all). */
static long summary_count(const char *body)
{
    if (starts_ci(body, "ERROR SUMMARY:"))
        return strstr(body, "not printed") ? -1
                                           : number_at(body + 14 + strspn(body + 14, " ")); /* 14: strlen of the prefix */
    if (!starts_ci(body, "RACECHECK SUMMARY:"))
        return -2;
    const char *paren = strchr(body, '(');
    if (!paren)
        return -1;
    long e = number_at(paren + 1);
    const char *comma = strchr(paren, ',');
    long w = comma ? number_at(comma + 1 + strspn(comma + 1, " ")) : 0;
    if (e < 0)
        return -1;
    return e + (w > 0 ? w : 0);
}

/* Whether a top-level line reports a race (racecheck's analysis or hazard form), after
 * its "Error: "/"Warning: " severity. */
static bool is_race_text(const char *s)
{
    return starts_ci(s, "Race reported") || (starts_ci(s, "Potential ") && strstr(s, "hazard"));
}

/* FILE:LINE after the next " in " from *pos that is followed by a token holding ":DIGITS"
 * (new form "at K+0x1b0 in kernel.cu:12", the CUDA 11 form "at 0x578 in /p/k.cu:120:K(...)",
 * the racecheck header "... access at K+0x130 in k.cu:53"); the file's directory is dropped.
 * *pos moves past it. false when there is none (out ""). */
static bool next_location(const char **pos, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *in = strstr(*pos, " in "); in; in = strstr(in + 1, " in ")) {
        const char *tok = in + 4, *end = tok;
        while (*end && *end != ' ' && *end != ';')
            end++;
        /* the line number: ':' then digits, ending the token or followed by ':' */
        for (const char *c = tok; c < end; c++) {
            if (*c != ':' || !isdigit((unsigned char)c[1]))
                continue;
            const char *d = c + 1;
            while (d < end && isdigit((unsigned char)*d))
                d++;
            if (d != end && *d != ':')
                continue;
            const char *file = tok;
            for (const char *q = tok; q < c; q++)
                if (*q == '/')
                    file = q + 1;
            if (file == c)
                break;
            snprintf(out, cap, "%.*s", (int)(d - file), file);
            *pos = d;
            return true;
        }
    }
    *pos += strlen(*pos);
    return false;
}

static void find_location(const char *s, char *out, size_t cap)
{
    next_location(&s, out, cap);
}

/* Every FILE:LINE that line s names, added to out->sites once each. */
static void add_sites(sanitize_report *out, const char *s)
{
    char loc[256], want[260];
    while (next_location(&s, loc, sizeof loc)) {
        snprintf(want, sizeof want, "%s\n", loc);
        bool have = false;
        for (const char *q = out->sites; *q && !have; q = strchr(q, '\n') + 1)
            have = strncmp(q, want, strlen(want)) == 0;
        if (have)
            continue;
        if (strlen(out->sites) + strlen(want) >= sizeof out->sites)
            out->sites_cut = true;
        else
            append(out->sites, sizeof out->sites, want, strlen(want));
    }
}

void sanitize_parse(const char *text, sanitize_report *out)
{
    memset(out, 0, sizeof *out);
    out->errors = -1;
    bool in_finding = false, in_backtrace = false, first = false;
    const char *s = text ? text : "";
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), s);
        s = nl ? nl + 1 : s + len;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (strncmp(line, PREFIX, strlen(PREFIX)) != 0) {
            /* the tool's usage errors come without the prefix; the program's lines too */
            if (!out->tool_error[0] &&
                (starts_ci(line, "unrecognised option") || starts_ci(line, "unrecognized option") ||
                 starts_ci(line, "Internal Sanitizer Error"))) /* i18n: not for people */
                snprintf(out->tool_error, sizeof out->tool_error, "%s", line);
            continue;
        }
        const char *rest = line + strlen(PREFIX);
        size_t indent = strspn(rest, " ");
        const char *body = rest + indent;
        if (!*body) { /* the blank line that closes a report */
            in_finding = false;
            continue;
        }
        if (indent >= 2) { /* a detail of the report above */
            if (!in_finding)
                continue;
            if (starts_ci(body, "Saved host backtrace") || starts_ci(body, "Saved device backtrace")) /* i18n: not for people */
                in_backtrace = true;
            if (in_backtrace || starts_ci(body, "Host Frame") || starts_ci(body, "Device Frame"))
                continue;
            add_sites(out, body);
            if (!first)
                continue;
            append(out->finding, sizeof out->finding, "; ", 2);
            append(out->finding, sizeof out->finding, body, strlen(body));
            continue;
        }
        in_finding = false;
        in_backtrace = false;
        first = false;
        long n = summary_count(body);
        if (n != -2) {
            if (n >= 0)
                out->errors = (int)(out->errors >= 0 ? out->errors + n : n);
            continue;
        }
        if (starts_ci(body, "COMPUTE-SANITIZER") || starts_ci(body, "LEAK SUMMARY") ||
            starts_ci(body, "Target application returned an error") || /* i18n: not for people */
            starts_ci(body, "Process didn't terminate successfully")) /* i18n: not for people */
            continue;
        bool err = starts_ci(body, "Error:"), warn = starts_ci(body, "Warning:");
        const char *after = body;
        if (err || warn)
            after = body + strcspn(body, ":") + 1 + strspn(body + strcspn(body, ":") + 1, " ");
        if ((err || warn) && !is_race_text(after)) {
            if (err && !out->tool_error[0])
                snprintf(out->tool_error, sizeof out->tool_error, "%s", body);
            continue; /* the tool's own notes ("Warning: ...") are not findings */
        }
        /* "Error launching target app.", "Error loading ...": the tool failed, no finding
         * (the sandbox's loopback was down once; an honest candidate must not be rejected
         * as out_of_bounds for it) */
        if (starts_ci(body, "Internal Sanitizer Error") || starts_ci(body, "Internal error") || /* i18n: not for people */
            (starts_ci(body, "Error ") && !is_race_text(body))) {
            if (!out->tool_error[0])
                snprintf(out->tool_error, sizeof out->tool_error, "%s", body);
            continue;
        }
        out->shown++;
        in_finding = true;
        add_sites(out, body);
        if (out->found)
            continue; /* only the first finding is quoted; every one's sites are kept */
        out->found = true;
        out->warning = warn;
        first = true;
        snprintf(out->finding, sizeof out->finding, "%s", body);
    }
    if (out->found)
        find_location(out->finding, out->location, sizeof out->location);
}

/* ---- memcheck's findings by signature ---- */

void sanitize_sigs_init(sanitize_sigs *s)
{
    memset(s, 0, sizeof *s);
    s->errors = -1;
}

void sanitize_sigs_free(sanitize_sigs *s)
{
    if (!s)
        return;
    hk_free(s->slots);
    sanitize_sigs_init(s);
}

/* "N" with thousands separators at s, as an unsigned 64-bit number; false when s holds no
 * digit or the number does not fit. */
static bool ull_at(const char *s, unsigned long long *out)
{
    unsigned long long v = 0;
    bool any = false;
    for (; *s == ',' || isdigit((unsigned char)*s); s++) {
        if (*s == ',')
            continue;
        unsigned d = (unsigned)(*s - '0');
        if (v > (~0ull - d) / 10)
            return false;
        v = v * 10 + d;
        any = true;
    }
    *out = v;
    return any;
}

/* "0xHEX" at s. */
static bool hex_at(const char *s, unsigned long long *out)
{
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
        return false;
    errno = 0;
    char *end = NULL;
    *out = strtoull(s + 2, &end, 16);
    return errno == 0 && end != s + 2;
}

static uint64_t sig_hash(const sanitize_sig *g)
{
    uint64_t h = 1469598103934665603ull;
    const uint64_t v[4] = {g->kind, g->size, g->alloc_size, (uint64_t)g->offset};
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++) {
            h ^= (v[i] >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    return h;
}

static bool sig_same(const sanitize_sig *a, const sanitize_sig *b)
{
    return a->kind == b->kind && a->size == b->size && a->alloc_size == b->alloc_size &&
           a->offset == b->offset;
}

/* The slot of g's signature in s (count 0: where it would go); s->cap > 0. */
static sanitize_sig *sig_slot(const sanitize_sigs *s, const sanitize_sig *g)
{
    size_t i = (size_t)sig_hash(g) & (s->cap - 1);
    while (s->slots[i].count && !sig_same(&s->slots[i], g))
        i = (i + 1) & (s->cap - 1);
    return &s->slots[i];
}

static int sig_add(sanitize_sigs *s, const sanitize_sig *g)
{
    if ((s->n + 1) * 2 > s->cap) { /* at most half full */
        size_t cap = s->cap ? s->cap * 2 : 1024;
        sanitize_sig *old = s->slots;
        size_t old_cap = s->cap;
        if (!(s->slots = hk_calloc(cap, sizeof *s->slots))) {
            s->slots = old;
            return HK_ENOMEM;
        }
        s->cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].count)
                *sig_slot(s, &old[i]) = old[i];
        hk_free(old);
    }
    sanitize_sig *slot = sig_slot(s, g);
    if (!slot->count) {
        *slot = *g;
        slot->count = 0;
        s->n++;
    }
    slot->count++;
    return HK_OK;
}

/* Closes the report being read: its signature counted, or it is counted unsigned. */
static int sigs_close(sanitize_sigs *s)
{
    if (!s->open)
        return HK_OK;
    s->open = false;
    if (!s->has_addr || !s->has_base || !s->has_size || !s->cur_size ||
        strncmp(s->cur_kind, "Invalid __global__ ", 19) != 0) {
        s->unsigned_n++;
        return HK_OK;
    }
    unsigned k = 0;
    while (k < s->n_kinds && strcmp(s->kinds[k], s->cur_kind))
        k++;
    if (k == s->n_kinds) {
        if (k == SANITIZE_SIG_KINDS) {
            s->unsigned_n++;
            return HK_OK;
        }
        snprintf(s->kinds[k], sizeof s->kinds[k], "%s", s->cur_kind);
        s->n_kinds++;
    }
    sanitize_sig g = {.kind = k, .size = s->cur_size, .alloc_size = s->alloc_size,
                      .offset = (long long)(s->addr - s->base), .count = 1};
    return sig_add(s, &g);
}

int sanitize_sigs_line(sanitize_sigs *s, const char *line, size_t len)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
    size_t l = strlen(buf);
    while (l && (buf[l - 1] == '\r' || buf[l - 1] == ' '))
        buf[--l] = '\0';
    if (strncmp(buf, PREFIX, strlen(PREFIX)) != 0)
        return HK_OK; /* the program's own line */
    const char *rest = buf + strlen(PREFIX);
    size_t indent = strspn(rest, " ");
    const char *body = rest + indent;
    if (!*body) /* the blank line that closes a report */
        return sigs_close(s);
    if (indent >= 2) { /* a detail of the report above */
        if (!s->open)
            return HK_OK;
        const char *p;
        if (starts_ci(body, "Access to ") && hex_at(body + 10, &s->addr))
            s->has_addr = true;
        else if (starts_ci(body, "and is ") && (p = strstr(body, "nearest allocation at ")) && /* i18n: not for people */
                 hex_at(p + 22, &s->base) && (p = strstr(p, " of size ")) &&
                 ull_at(p + 9, &s->alloc_size))
            s->has_base = true;
        if (s->printed == 1 && !starts_ci(body, "Saved host backtrace") && /* i18n: not for people */
            !starts_ci(body, "Host Frame") && !starts_ci(body, "Device Frame")) {
            append(s->first, sizeof s->first, "; ", 2);
            append(s->first, sizeof s->first, body, strlen(body));
        }
        return HK_OK;
    }
    int rc = sigs_close(s);
    if (rc)
        return rc;
    if (starts_ci(body, "ERROR SUMMARY:")) {
        const char *n = body + 14 + strspn(body + 14, " ");
        unsigned long long v;
        if (!ull_at(n, &v))
            return HK_OK;
        if (strstr(n, "not printed"))
            s->unprinted += (long)(v > (unsigned long long)LONG_MAX ? LONG_MAX : v);
        else
            s->errors = (long)(v > (unsigned long long)LONG_MAX ? LONG_MAX : v);
        return HK_OK;
    }
    /* the banner, the tool's notes and failures: no finding (as sanitize_parse) */
    if (starts_ci(body, "COMPUTE-SANITIZER") || starts_ci(body, "LEAK SUMMARY") ||
        starts_ci(body, "Target application returned an error") || /* i18n: not for people */
        starts_ci(body, "Process didn't terminate successfully") || starts_ci(body, "Error") || /* i18n: not for people */
        starts_ci(body, "Warning:") || starts_ci(body, "Internal "))
        return HK_OK;
    s->printed++;
    if (s->printed > SANITIZE_SIG_MAX_FINDINGS) {
        s->overflow = true;
        return HK_OK;
    }
    s->open = true;
    s->has_addr = s->has_base = s->has_size = false;
    s->cur_size = 0;
    const char *of = strstr(body, " of size ");
    unsigned long long sz;
    snprintf(s->cur_kind, sizeof s->cur_kind, "%.*s",
             (int)(of ? (size_t)(of - body) : strlen(body)), body);
    if (of && ull_at(of + 9, &sz) && sz <= 0xffffffffull) {
        s->cur_size = (unsigned)sz;
        s->has_size = true;
    }
    if (s->printed == 1)
        snprintf(s->first, sizeof s->first, "%s", body);
    return HK_OK;
}

int sanitize_sigs_end(sanitize_sigs *s)
{
    return sigs_close(s);
}

int sanitize_sigs_parse(const char *text, sanitize_sigs *s)
{
    sanitize_sigs_init(s);
    const char *p = text ? text : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int rc = sanitize_sigs_line(s, p, len);
        if (rc)
            return rc;
        p = nl ? nl + 1 : p + len;
    }
    return sanitize_sigs_end(s);
}

bool sanitize_sigs_complete(const sanitize_sigs *s)
{
    return s && s->errors >= 0 && s->printed == s->errors && s->unprinted == 0 &&
           s->unsigned_n == 0 && !s->overflow && !s->open;
}

/* "a 4-byte Invalid __global__ read 4 bytes before an allocation of 4000012 bytes"; past
 * the end counted as the tool counts it ("1 bytes after": the first byte past the end) */
static void sig_words(const sanitize_sigs *s, const sanitize_sig *g, char *out, size_t cap)
{
    long long off = g->offset;
    if (off < 0)
        snprintf(out, cap, EN(SAN_SIG_BEFORE), g->size,
                 s->kinds[g->kind], (unsigned long long)-off, g->alloc_size);
    else if ((unsigned long long)off >= g->alloc_size)
        snprintf(out, cap, EN(SAN_SIG_AFTER), g->size, s->kinds[g->kind],
                 (unsigned long long)off - g->alloc_size + 1, g->alloc_size);
    else
        snprintf(out, cap, EN(SAN_SIG_INSIDE), g->size, s->kinds[g->kind], off, g->alloc_size);
}

bool sanitize_sigs_within(const sanitize_sigs *base, const sanitize_sigs *cand, char *why,
                          size_t why_len)
{
    char dummy[8];
    if (!why) {
        why = dummy;
        why_len = sizeof dummy;
    }
    why[0] = '\0';
    if (!base || !cand)
        return false;
    if (!sanitize_sigs_complete(base)) {
        snprintf(why, why_len, EN(SAN_BASE_UNSEEN), base->printed, base->errors);
        return false;
    }
    if (!sanitize_sigs_complete(cand)) {
        if (cand->errors > base->errors)
            snprintf(why, why_len, EN(SAN_MORE_FINDINGS), cand->errors, base->errors);
        else
            snprintf(why, why_len, EN(SAN_CAND_UNSEEN), cand->printed, cand->errors,
                     cand->unprinted, cand->unsigned_n);
        return false;
    }
    if (cand->errors > base->errors) {
        snprintf(why, why_len, EN(SAN_MORE_FINDINGS), cand->errors, base->errors);
        return false;
    }
    for (size_t i = 0; i < cand->cap; i++) {
        const sanitize_sig *g = &cand->slots[i];
        if (!g->count)
            continue;
        sanitize_sig want = *g;
        unsigned k = 0;
        while (k < base->n_kinds && strcmp(base->kinds[k], cand->kinds[g->kind]))
            k++;
        want.kind = k;
        const sanitize_sig *b = k < base->n_kinds && base->cap ? sig_slot(base, &want) : NULL;
        long have = b && b->count ? b->count : 0;
        if (g->count > have) {
            char w[384];
            sig_words(cand, g, w, sizeof w);
            if (have)
                snprintf(why, why_len, EN(SAN_SIG_MORE), w, g->count, have);
            else
                snprintf(why, why_len, EN(SAN_SIG_NEW), w);
            return false;
        }
    }
    return true;
}

/* The generated program's message: "message" of its last JSON line (an {"error":...} line
 * says why it failed), or "". */
static void program_message(const char *text, char *out, size_t cap)
{
    out[0] = '\0';
    const char *s = text ? text : "";
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len && *s == '{') {
            json_t *j = json_loadb(s, len, 0, NULL);
            const char *m = json_string_value(json_object_get(j, "message"));
            if (m)
                snprintf(out, cap, "%s", m);
            json_decref(j);
        }
        s = nl ? nl + 1 : s + len;
    }
}

/* The tool's first lines after its banner, on one line (for a report without a finding
 * this parser knows). */
static void first_tool_lines(const char *text, char *out, size_t cap)
{
    out[0] = '\0';
    int n = 0;
    const char *s = text ? text : "";
    while (*s && n < 3) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *b = s + strlen(PREFIX);
        if (len > strlen(PREFIX) && strncmp(s, PREFIX, strlen(PREFIX)) == 0) {
            b += strspn(b, " ");
            size_t bl = len - (size_t)(b - s);
            if (bl && !starts_ci(b, "COMPUTE-SANITIZER")) {
                if (n++)
                    append(out, cap, "; ", 2);
                append(out, cap, b, bl);
            }
        }
        s = nl ? nl + 1 : s + len;
    }
}

static enum measure_reason finding_reason(enum sanitize_tool tool, const char *finding)
{
    /* memcheck also reports failed API calls and hardware exceptions: not memory safety */
    if (tool == SANITIZE_MEMCHECK &&
        (starts_ci(finding, "Program hit") || strstr(finding, "Illegal Instruction") ||
         starts_ci(finding, "Hardware exception")))
        return MEASURE_CUDA_ERROR;
    return sanitize_tool_reason(tool);
}

void sanitize_judge(enum sanitize_tool tool, int exit_code, int term_signal, bool timed_out,
                    unsigned timeout_ms, const char *text, sanitize_tool_result *out)
{
    memset(out, 0, sizeof *out);
    out->tool = tool;
    out->reason = MEASURE_OK;
    sanitize_report rep;
    sanitize_parse(text, &rep);
    out->errors = rep.errors;
    char msg[512];
    program_message(text, msg, sizeof msg);
    if (rep.found && rep.errors != 0) {
        out->status = SANITIZE_FOUND;
        out->reason = finding_reason(tool, rep.finding);
        snprintf(out->sites, sizeof out->sites, "%s", rep.sites);
        out->shown = rep.shown;
        /* judged against the print limit by run_tool; here: nothing cut, and as many
         * findings printed as the summary counts (racecheck: its errors plus warnings, one
         * per report: the probe's warp-synchronous tail, 6 racing lines, printed 1 of "0
         * errors, 5 warnings" under --print-limit 1) */
        out->all_seen = !rep.sites_cut && !timed_out && rep.errors >= 0 &&
                        rep.shown >= rep.errors;
        out->cut = timed_out;
        if (timed_out)
            snprintf(out->text, sizeof out->text, EN(SAN_FINDING_CUT), rep.finding);
        else
            snprintf(out->text, sizeof out->text, "%s", rep.finding);
    } else if (exit_code == SANITIZE_EXIT_FOUND && !timed_out && !term_signal) {
        char first[SANITIZE_TEXT_MAX];
        first_tool_lines(text, first, sizeof first);
        out->status = SANITIZE_FOUND;
        out->reason = sanitize_tool_reason(tool);
        if (first[0])
            snprintf(out->text, sizeof out->text, EN(SAN_EXIT_FOUND_LINES), SANITIZE_EXIT_FOUND,
                     first);
        else
            snprintf(out->text, sizeof out->text, EN(SAN_EXIT_FOUND), SANITIZE_EXIT_FOUND);
    } else if (timed_out) {
        out->status = SANITIZE_TIMED_OUT;
        out->cut = true;
        out->incomplete = true;
        snprintf(out->text, sizeof out->text, hk_tr(HK_MSG_SAN_TIMED_OUT), timeout_ms / 1000);
    } else if (exit_code == 0 && !term_signal) {
        out->status = SANITIZE_CLEAN;
    } else if (rep.tool_error[0] || term_signal || exit_code == 255 || exit_code < 0) {
        out->status = SANITIZE_NOT_CHECKED;
        /* a signal without the tool's own error: the runner's limits (OOM, CPU) ended it */
        out->incomplete = term_signal && !rep.tool_error[0];
        if (rep.tool_error[0])
            snprintf(out->text, sizeof out->text, hk_tr(HK_MSG_SAN_TOOL_FAILED), rep.tool_error);
        else if (term_signal)
            snprintf(out->text, sizeof out->text, hk_tr(HK_MSG_SAN_TOOL_KILLED), term_signal);
        else
            snprintf(out->text, sizeof out->text, hk_tr(HK_MSG_SAN_TOOL_EXIT), exit_code);
    } else {
        enum measure_reason r = measure_reason_from_exit(exit_code);
        bool could_not_start = r == MEASURE_NO_GPU || r == MEASURE_SPEC_MISMATCH ||
                               r == MEASURE_HARNESS_ERROR || r == MEASURE_RESOURCE_LIMIT ||
                               r == MEASURE_TIMEOUT;
        out->status = could_not_start ? SANITIZE_NOT_CHECKED : SANITIZE_FAILED;
        out->reason = could_not_start ? MEASURE_OK : r;
        snprintf(out->text, sizeof out->text, hk_tr(HK_MSG_SAN_PROGRAM_EXITED), exit_code,
                 measure_reason_name(r), msg[0] ? ": " : "", msg);
    }
}

bool sanitize_credit_allowed(const sanitize_result *r, double claimed_speedup)
{
    return !(r && r->outcome == SANITIZE_UNCHECKED && r->incomplete &&
             claimed_speedup > SANITIZE_CLAIM_SPEEDUP);
}

char *sanitize_credit_note(const sanitize_result *r, double claimed_speedup)
{
    const sanitize_tool_result *x = NULL;
    /* the smallest size's pass first, then the timed size's (sanitize_result_add_timed) */
    for (const sanitize_result *p = r; p && !x; p = p->at_timed)
        for (int t = 0; t < SANITIZE_N_TOOLS && !x; t++)
            if (p->tools[t].incomplete)
                x = &p->tools[t];
    return hk_asprintf(hk_tr(HK_MSG_SAN_CREDIT_INCOMPLETE),
                       x ? sanitize_tool_name(x->tool) : "?", x ? x->text : "?",
                       SANITIZE_CLAIM_SPEEDUP, claimed_speedup);
}

bool sanitize_wanted(bool best, bool forced, double claimed_speedup, bool already)
{
    if (already)
        return false;
    return best || forced || claimed_speedup > SANITIZE_CLAIM_SPEEDUP;
}

/* ---- running the tools ---- */

void sanitize_result_clear(sanitize_result *r)
{
    if (!r)
        return;
    if (r->sigs) {
        sanitize_sigs_free(r->sigs);
        hk_free(r->sigs);
    }
    hk_free(r->details);
    hk_free(r->note);
    if (r->at_timed) {
        sanitize_result_clear(r->at_timed);
        hk_free(r->at_timed);
    }
    memset(r, 0, sizeof *r);
}

bool sanitize_timed_wanted(const sanitize_result *r, int timed_size)
{
    return r && r->tool_path[0] && r->outcome != SANITIZE_REJECTED && !r->incomplete &&
           !r->timed && !r->at_timed && timed_size >= 0 && timed_size != r->size;
}

static bool executable(const char *path)
{
    return path && access(path, X_OK) == 0;
}

int sanitize_find_tool(char **out, char *why, size_t why_len)
{
    *out = NULL;
    char dummy[8];
    if (!why) {
        why = dummy;
        why_len = sizeof dummy;
    }
    why[0] = '\0';
    const char *env = getenv("HK_COMPUTE_SANITIZER");
    if (env && *env) {
        if (!strcmp(env, "off") || !strcmp(env, "none")) {
            snprintf(why, why_len, hk_tr(HK_MSG_SAN_TURNED_OFF), env);
            return HK_ENOENT;
        }
        if (!executable(env)) {
            snprintf(why, why_len, hk_tr(HK_MSG_SAN_NOT_EXECUTABLE), env);
            return HK_ENOENT;
        }
        return (*out = hk_strdup(env)) ? HK_OK : HK_ENOMEM;
    }
    int rc = cc_find_tool(CC_NVIDIA, "compute-sanitizer", out);
    if (rc != HK_ENOENT)
        return rc;
    /* the toolkit keeps the real binary in its own folder; bin/ holds a launcher */
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < HK_ARRAY_LEN(homes); i++) {
        if (!homes[i] || !*homes[i])
            continue;
        char *p = hk_asprintf("%s/compute-sanitizer/compute-sanitizer", homes[i]);
        if (!p)
            return HK_ENOMEM;
        if (executable(p)) {
            *out = p;
            return HK_OK;
        }
        hk_free(p);
    }
    snprintf(why, why_len, "%s", hk_tr(HK_MSG_SAN_NOT_FOUND));
    return HK_ENOENT;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return hk_strdup(".");
    if (slash == path)
        return hk_strdup("/");
    return hk_strndup(path, (size_t)(slash - path));
}

/* A copy of the launcher (trusted: hkls's own program) in the candidate's directory, for the
 * tool to run. compute-sanitizer checks that it may run its target in a way that does not
 * honour the sandbox's capability: in the namespace sandbox (its own uid, CAP_DAC_OVERRIDE
 * only) it answered "Error launching target app." for the launcher under the user's 0700
 * home, which execve reaches, and launched a copy of it in the candidate's directory (H200,
 * session 23: tests/gpu/sanitizer_variants.sh). The directory is the candidate's, but what
 * runs there is the launcher and device code, which reaches no file. *out: the copy's path. */
static int copy_launcher(const char *exe, const char *dir, char **out)
{
    char *dst = hk_asprintf("%s/hk-sanitize-launcher", dir);
    if (!dst)
        return HK_ENOMEM;
    int rc = HK_EIO, in = open(exe, O_RDONLY | O_CLOEXEC), fd = -1;
    (void)unlink(dst);
    if (in >= 0)
        fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    if (fd >= 0) {
        char buf[65536];
        ssize_t n;
        /* runnable by the sandbox's own uid whatever the umask (the tool's check is for it) */
        rc = fchmod(fd, 0755) == 0 ? HK_OK : HK_EIO;
        while (rc == HK_OK && (n = read(in, buf, sizeof buf)) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            for (ssize_t off = 0; rc == HK_OK && n > 0 && off < n;) {
                ssize_t w = write(fd, buf + off, (size_t)(n - off));
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    rc = HK_EIO;
                else
                    off += w;
            }
            if (n < 0)
                rc = HK_EIO;
        }
        if (close(fd) != 0)
            rc = HK_EIO;
    }
    if (in >= 0)
        close(in);
    if (rc != HK_OK) {
        (void)unlink(dst);
        hk_free(dst);
        return rc;
    }
    *out = dst;
    return HK_OK;
}

/* Elements in the largest buffer of spec s at size k; -1 when none evaluates. */
static long long largest_buffer(const measure_opts *o, int k)
{
    long long best = -1;
    const spec *s = o->spec;
    for (size_t i = 0; i < s->n_args; i++) {
        expr_value v;
        char err[64];
        if (s->args[i].count &&
            spec_eval(s, s->args[i].count, (size_t)k, o->sm_count > 0 ? o->sm_count : 132, &v,
                      err, sizeof err) == HK_OK) {
            double d = expr_value_double(v);
            if (d > (double)best && d < 9e18)
                best = (long long)d;
        }
    }
    return best;
}

/* One tool's limit: so->timeout_ms, else the environment's ($HK_SANITIZE_TIMED_S for the
 * pass at the timed size, $HK_SANITIZE_TIMEOUT_S otherwise), else the default. */
static unsigned timeout_of(const sanitize_opts *so)
{
    if (so && so->timeout_ms)
        return so->timeout_ms;
    bool timed = so && so->timed;
    const char *name = timed ? "HK_SANITIZE_TIMED_S" : "HK_SANITIZE_TIMEOUT_S";
    unsigned dflt = timed ? SANITIZE_TIMED_TIMEOUT_MS : SANITIZE_TIMEOUT_MS;
    const char *env = getenv(name);
    if (env && *env) {
        char *end = NULL;
        double s = strtod(env, &end);
        if (end && !*end && s >= 1 && s <= 86400)
            return (unsigned)(s * 1000);
        HK_WARN("sanitize: %s=%s is not a number of seconds in [1, 86400]; using %u s", name,
                env, dflt / 1000);
    }
    return dflt;
}

/* tool + its flags + o's wrapper + the program's argv, as one new argv. */
static int tool_argv(const char *tool, enum sanitize_tool t, const measure_opts *o,
                     unsigned print_limit, const char *const *extra, char **prog_argv,
                     char ***out)
{
    char limit[16];
    snprintf(limit, sizeof limit, "%u", print_limit);
    const char *const *flags = sanitize_tool_flags(t);
    size_t nf = 0, ne = 0, nw = 0, np = 0;
    while (flags[nf])
        nf++;
    while (extra && extra[ne])
        ne++;
    while (o->wrapper && o->wrapper[nw])
        nw++;
    while (prog_argv[np])
        np++;
    char **v = hk_calloc(1 + nf + ne + nw + np + 1, sizeof *v);
    if (!v)
        return HK_ENOMEM;
    size_t k = 0;
    bool ok = (v[k++] = hk_strdup(tool)) != NULL;
    for (size_t i = 0; ok && i < nf; i++)
        ok = (v[k++] = hk_strdup(i && !strcmp(flags[i - 1], "--print-limit") ? limit
                                                                             : flags[i])) != NULL;
    for (size_t i = 0; ok && i < ne; i++)
        ok = (v[k++] = hk_strdup(extra[i])) != NULL;
    for (size_t i = 0; ok && i < nw; i++)
        ok = (v[k++] = hk_strdup(o->wrapper[i])) != NULL;
    for (size_t i = 0; ok && i < np; i++)
        ok = (v[k++] = hk_strdup(prog_argv[i])) != NULL;
    if (!ok) {
        harness_argv_free(v);
        return HK_ENOMEM;
    }
    *out = v;
    return HK_OK;
}

/* The log file of a run that prints every finding (run_tool with sigs): fed to sigs line by
 * line, its first OUTPUT_MAX bytes and every summary line after them appended to text (for
 * sanitize_judge); *cut when lines were left out of text. The file is the tool's alone
 * (--log-file): the program's own printf goes to stdout, so device code cannot print a
 * finding into it. A missing file (the tool did not start) adds nothing. HK_OK, HK_ENOMEM. */
static int read_findings_log(const char *path, sanitize_sigs *sigs, struct hk_buf *text,
                             bool *cut)
{
    *cut = false;
    FILE *f = fopen(path, "r");
    if (!f)
        return HK_OK;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = HK_OK;
    while (!rc && (n = getline(&line, &cap, f)) >= 0) {
        size_t len = (size_t)n;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if ((rc = sanitize_sigs_line(sigs, line, len)))
            break;
        bool summary = strstr(line, "SUMMARY:") != NULL;
        if (!*cut && text->len + len + 1 <= OUTPUT_MAX) {
            rc = hk_buf_append(text, line, len);
            rc = rc ? rc : hk_buf_append(text, "\n", 1);
        } else {
            *cut = true;
            if (summary) {
                rc = hk_buf_append(text, line, len);
                rc = rc ? rc : hk_buf_append(text, "\n", 1);
            }
        }
    }
    free(line);
    fclose(f);
    if (!rc)
        rc = sanitize_sigs_end(sigs);
    return rc == HK_ETOOBIG ? HK_ENOMEM : rc;
}

/* One tool's run of the program at out's combination. HK_OK (res says what happened),
 * HK_ECANCELED, HK_ENOMEM. With sigs (memcheck judged by signature): every finding up to
 * print_limit printed without backtraces into a log file in the program's directory, read
 * into sigs (initialised here); res->shown and res->all_seen then count them all. */
static int run_tool(const measure_opts *o, const char *tool, enum sanitize_tool t,
                    const measure_prog *p, const sanitize_result *at, unsigned timeout_ms,
                    unsigned print_limit, sanitize_sigs *sigs, sanitize_tool_result *res)
{
    char *logpath = NULL;
    struct hk_buf tb;
    hk_buf_init(&tb, (size_t)4 * OUTPUT_MAX);
    if (sigs)
        sanitize_sigs_init(sigs);
    harness_run hr = {.mode = "run", .size = at->size, .dist = at->dist, .seed = at->seed,
                      .check_seed = -1, .block = p->block};
    char **pargv = NULL, **argv = NULL, *exedir = NULL, *tooldir = NULL, *wrapdir = NULL,
         *text = NULL, *fn = NULL, *copy = NULL;
    runner_result r;
    memset(&r, 0, sizeof r);
    int rc = HK_OK;
    if (p->module) { /* a launcher: the candidate is the image it loads */
        if ((rc = measure_read_entry(p->module, &fn)))
            goto out;
        hr.module = p->module;
        hr.function = fn;
    }
    /* the candidate's own directory (its image's, for a launcher) is where it runs */
    if (!(exedir = dir_of(p->module ? p->module : p->exe)) || !(tooldir = dir_of(tool)) ||
        (o->wrapper && o->wrapper[0] && !(wrapdir = dir_of(o->wrapper[0])))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (p->module && (rc = copy_launcher(p->exe, exedir, &copy))) {
        if (rc == HK_ENOMEM)
            goto out;
        memset(res, 0, sizeof *res);
        res->tool = t;
        res->status = SANITIZE_NOT_CHECKED;
        snprintf(res->text, sizeof res->text, EN(SAN_NO_LAUNCHER_COPY), exedir, tool);
        rc = HK_OK;
        goto out;
    }
    if ((rc = harness_run_argv(copy ? copy : p->exe, &hr, &pargv)))
        goto out;
    if (sigs && !(logpath = hk_asprintf("%s/hk-sanitize-findings.log", exedir))) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *log_flags[] = {"--show-backtrace", "no", "--log-file", logpath, NULL};
    if ((rc = tool_argv(tool, t, o, print_limit, sigs ? log_flags : NULL, pargv, &argv)))
        goto out;
    /* the program's directory is where it runs; the tool and a wrapper under /tmp must stay
     * visible under bwrap's private /tmp */
    const char *writable[] = {exedir, NULL};
    const char *readable[4] = {tooldir, NULL, NULL, NULL};
    size_t nr = 1;
    if (wrapdir)
        readable[nr++] = wrapdir;
    const char *env_set[] = {SANITIZE_GUARD_ENV, NULL};
    runner_spec rs = {
        .argv = (const char *const *)argv,
        .cwd = exedir,
        .env_set = env_set,
        .timeout_ms = timeout_ms,
        .output_max = OUTPUT_MAX,
        /* the tool keeps shadow state on the host too */
        .memory_max = o->memory_max ? 2 * o->memory_max : 0,
        .gpu = true,
        .isolation = o->isolation,
        .writable = writable,
        .readable = readable,
    };
    for (int attempt = 0;; attempt++) {
        /* The tool runs the kernel but times nothing: the GPU lock shared, beside other
         * episodes' checks, never beside a timed loop. Not handed to the program: its run
         * mode has no timed loop, and the tool's slowdown would make any timing moot. */
        if (logpath)
            (void)unlink(logpath);
        rc = measure_run_argv_held(o, &rs, MEASURE_GPU_SHARED, &r);
        if (rc == HK_ECANCELED || rc == HK_ENOMEM)
            goto out;
        if (rc) {
            memset(res, 0, sizeof *res);
            res->tool = t;
            res->status = SANITIZE_NOT_CHECKED;
            snprintf(res->text, sizeof res->text, EN(MEAS_RUN_NOT_STARTED), tool,
                     hk_strerror(rc));
            rc = HK_OK;
            goto out;
        }
        bool log_cut = false;
        if (sigs) {
            sanitize_sigs_free(sigs);
            hk_buf_reset(&tb);
            if ((rc = read_findings_log(logpath, sigs, &tb, &log_cut)))
                goto out;
        }
        if (!(text = hk_asprintf("%s%s\n%s", tb.data ? tb.data : "", r.out ? r.out : "",
                                 r.err ? r.err : ""))) {
            rc = HK_ENOMEM;
            goto out;
        }
        sanitize_judge(t, r.exit_code, r.term_signal, r.timed_out, timeout_ms, text, res);
        res->net_only = attempt > 0;
        if (sigs) {
            /* every finding printed is in sigs; the text's sites hold all of them only when
             * no line was left out of it */
            res->shown = sigs->printed > INT_MAX ? INT_MAX : (int)sigs->printed;
            res->all_seen = res->all_seen && !log_cut && sanitize_sigs_complete(sigs);
        }
        if (res->shown >= (int)print_limit)
            res->all_seen = false; /* the tool stopped printing: some findings are unseen */
        /* Should the tool still not launch its target inside the namespace sandbox ("Error
         * launching target app.": seen on the H200 until the launcher was copied, above),
         * it gets one more try in the network-only sandbox: what it runs is the trusted
         * launcher and the candidate's device code, which reaches no file. The summary says
         * so (make_note). */
        if (attempt > 0 || res->status != SANITIZE_NOT_CHECKED ||
            r.isolation != RUNNER_ISO_NAMESPACES || !strstr(res->text, "launching target"))
            break;
        runner_result_free(&r);
        memset(&r, 0, sizeof r);
        hk_free(text);
        text = NULL;
        rs.isolation = RUNNER_ISO_UNSHARE_NET;
    }
    if ((r.memory_limit_hit || r.cpu_limit_hit) && res->status != SANITIZE_FOUND) {
        res->status = SANITIZE_NOT_CHECKED;
        res->reason = MEASURE_OK;
        res->incomplete = true;
        snprintf(res->text, sizeof res->text, "%s",
                 r.memory_limit_hit ? EN(SAN_MEMORY_LIMIT) : EN(SAN_CPU_LIMIT));
    }
    res->wall_ms = r.wall_ms;
out:
    if (logpath)
        (void)unlink(logpath);
    hk_free(logpath);
    hk_buf_free(&tb);
    runner_result_free(&r);
    harness_argv_free(pargv);
    harness_argv_free(argv);
    hk_free(exedir);
    hk_free(tooldir);
    hk_free(wrapdir);
    hk_free(text);
    hk_free(fn);
    if (copy)
        (void)unlink(copy);
    hk_free(copy);
    return rc;
}

/* The note's "at size K (N elements in the largest buffer)" part. */
static void size_words(const sanitize_result *r, char *out, size_t cap)
{
    if (r->elements >= 0)
        snprintf(out, cap, hk_tr(HK_MSG_SAN_AT_SIZE), r->size, r->elements,
                 r->elements > SANITIZE_LARGE_ELEMENTS ? hk_tr(HK_MSG_SAN_LARGE) : "", r->seed);
    else
        snprintf(out, cap, hk_tr(HK_MSG_SAN_AT_SIZE_SHORT), r->size, r->seed);
}

/* New string: "memory safety: not checked (<why>)", the note when nothing ran. */
static char *not_checked_note(const char *why)
{
    char *body = hk_trf(HK_MSG_SAN_NOT_CHECKED, why);
    char *note = body ? hk_trf(HK_MSG_SAN_NOTE, body) : NULL;
    hk_free(body);
    return note;
}

/* *body: new string, r's note without the "memory safety: " around it. HK_OK, HK_ENOMEM. */
static int note_body(const sanitize_result *r, char **body)
{
    char at[384];
    size_words(r, at, sizeof at);
    struct hk_buf b;
    hk_buf_init(&b, 8192);
    int rc = HK_OK;
    bool net_only = false;
    for (int t = 0; t < SANITIZE_N_TOOLS; t++)
        net_only |= r->tools[t].net_only;
    if (net_only) {
        size_t l = strlen(at);
        snprintf(at + l, sizeof at - l, "%s", hk_tr(HK_MSG_SAN_NET_ONLY));
    }
    const sanitize_tool_result *inh = NULL;
    for (int t = 0; t < SANITIZE_N_TOOLS && !inh; t++)
        if (r->tools[t].status == SANITIZE_INHERITED)
            inh = &r->tools[t];
    /* the body first, then "memory safety: " around it: the episode keeps the body (a
     * version's record, "v3: <body>") and a face says either again (hk_tr_said) */
    if (r->outcome == SANITIZE_PASSED && inh)
        rc = hk_buf_printf(&b, hk_tr(inh->by_signature ? HK_MSG_SAN_PASSED_SIGNATURES
                                                       : HK_MSG_SAN_PASSED_INHERITED),
                           sanitize_tool_name(inh->tool), inh->text, at);
    else if (r->outcome == SANITIZE_PASSED)
        rc = hk_buf_printf(&b, hk_tr(HK_MSG_SAN_PASSED), at);
    else if (r->outcome == SANITIZE_REJECTED)
        rc = hk_buf_printf(&b, hk_tr(HK_MSG_SAN_REJECTED), measure_reason_name(r->reason),
                           r->details ? r->details : "");
    else {
        /* one slot per tool, in order: a reading of the stored sentence has no list to
         * guess the ends of */
        char words[SANITIZE_N_TOOLS][SANITIZE_TEXT_MAX + 256];
        for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
            const sanitize_tool_result *x = &r->tools[t];
            bool said = x->text[0] && x->status != SANITIZE_CLEAN;
            enum hk_msg id = x->status == SANITIZE_CLEAN ? HK_MSG_SAN_TOOL_CLEAN
                           : x->status == SANITIZE_TIMED_OUT || x->status == SANITIZE_NOT_CHECKED
                               ? (said ? HK_MSG_SAN_TOOL_NOT_CHECKED : HK_MSG_SAN_TOOL_NOT_CHECKED_BARE)
                               : (said ? HK_MSG_SAN_TOOL_NOT_RUN : HK_MSG_SAN_TOOL_NOT_RUN_BARE);
            snprintf(words[t], sizeof words[t], hk_tr(id), sanitize_tool_name(t), x->text);
        }
        _Static_assert(SANITIZE_N_TOOLS == 3, "SAN_NOT_FULLY has a slot per tool"); /* i18n: not for people */
        rc = hk_buf_printf(&b, hk_tr(HK_MSG_SAN_NOT_FULLY), words[0], words[1], words[2], at);
    }
    *body = rc ? NULL : hk_buf_steal(&b);
    hk_buf_free(&b);
    return rc ? rc : *body ? HK_OK : HK_ENOMEM;
}

/* r->note: "memory safety: <body>"; with a pass at the timed size that did not reject,
 * both bodies ("<smallest size's>; at the timed size, one launch: <timed size's>"). The
 * smallest size's body is written from small_body when given (r as it was before the timed
 * pass was folded in). */
static int make_note_with(sanitize_result *r, const char *small_body)
{
    char *body = NULL, *timed = NULL, *both = NULL;
    if (r->outcome == SANITIZE_REJECTED)
        small_body = NULL; /* the rejection is the note, whichever pass made it */
    int rc = small_body ? ((body = hk_strdup(small_body)) ? HK_OK : HK_ENOMEM)
                        : note_body(r, &body);
    if (!rc && r->at_timed && r->outcome != SANITIZE_REJECTED) {
        rc = note_body(r->at_timed, &timed);
        if (!rc && !(both = hk_trf(HK_MSG_SAN_TIMED_NOTE, body, timed)))
            rc = HK_ENOMEM;
    }
    hk_free(r->note);
    r->note = NULL;
    if (!rc && !(r->note = hk_trf(HK_MSG_SAN_NOTE, both ? both : body)))
        rc = HK_ENOMEM;
    hk_free(body);
    hk_free(timed);
    hk_free(both);
    return rc;
}

static int make_note(sanitize_result *r)
{
    return make_note_with(r, NULL);
}

int sanitize_result_add_timed(sanitize_result *r, sanitize_result *timed)
{
    char *small_body = NULL;
    int rc = note_body(r, &small_body);
    sanitize_result *t = rc ? NULL : hk_calloc(1, sizeof *t);
    if (!t) {
        hk_free(small_body);
        return rc ? rc : HK_ENOMEM;
    }
    *t = *timed;
    memset(timed, 0, sizeof *timed);
    r->at_timed = t;
    if (t->outcome == SANITIZE_REJECTED && r->outcome != SANITIZE_REJECTED) {
        r->outcome = SANITIZE_REJECTED;
        r->reason = t->reason;
        hk_free(r->details);
        if (!(r->details = hk_strdup(t->details ? t->details : ""))) {
            hk_free(small_body);
            return HK_ENOMEM;
        }
    } else if (t->outcome == SANITIZE_UNCHECKED && r->outcome == SANITIZE_PASSED) {
        r->outcome = SANITIZE_UNCHECKED;
    }
    r->incomplete |= t->incomplete && r->outcome == SANITIZE_UNCHECKED;
    rc = make_note_with(r, small_body);
    hk_free(small_body);
    return rc;
}

/* Line n (1-based) of text, trimmed of blanks at both ends, into out ("" past the end). */
static void line_trimmed(const char *text, size_t len, long n, char *out, size_t size)
{
    out[0] = '\0';
    size_t i = 0;
    for (long l = 1; l < n && i < len; i++)
        l += text[i] == '\n';
    if (n < 1 || i >= len)
        return;
    size_t e = i;
    while (e < len && text[e] != '\n')
        e++;
    while (i < e && isspace((unsigned char)text[i]))
        i++;
    while (e > i && isspace((unsigned char)text[e - 1]))
        e--;
    snprintf(out, size, "%.*s", (int)(e - i), text + i);
}

/* How many lines of text, trimmed, are want. */
static size_t count_line(const char *text, size_t len, const char *want)
{
    size_t wl = strlen(want), n = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t a = i, b = e;
        while (a < b && isspace((unsigned char)text[a]))
            a++;
        while (b > a && isspace((unsigned char)text[b - 1]))
            b--;
        n += b - a == wl && memcmp(text + a, want, wl) == 0;
        i = e + 1;
    }
    return n;
}

/* Whether tool t's finding x in the candidate is the original kernel's (sanitize_opts):
 * the tool found something in the original too, every finding it printed was seen, and
 * every source line they name reads as a line of the original's text, with no more copies
 * of it in the candidate than in the original (a racing statement copied to a new place
 * races there on its own account). */
static bool inherited(const sanitize_opts *so, enum sanitize_tool t, const sanitize_tool_result *x)
{
    if (!so || !so->baseline || !so->base_text || !so->cand_text ||
        so->baseline->tools[t].status != SANITIZE_FOUND || !x->all_seen)
        return false;
    int named = 0;
    for (const char *s = x->sites; *s;) {
        const char *nl = strchr(s, '\n'), *colon = nl;
        while (colon > s && colon[-1] != ':')
            colon--;
        if (!nl || colon == s || !isdigit((unsigned char)*colon))
            return false;
        char line[512];
        line_trimmed(so->cand_text, so->cand_len, strtol(colon, NULL, 10), line, sizeof line);
        size_t in_base = line[0] ? count_line(so->base_text, so->base_len, line) : 0;
        if (!in_base || count_line(so->cand_text, so->cand_len, line) > in_base)
            return false;
        named++;
        s = nl + 1;
    }
    return named > 0;
}

/* sanitize_opts.signatures: memcheck found something in the baseline (x, at print limit 1 or
 * SANITIZE_JUDGE_PRINT_LIMIT); it runs once more printing every finding its summary counted
 * (limit: that count + 1) into out->sigs. Not run past SANITIZE_SIG_MAX_FINDINGS, nor when the
 * count is unknown (the run was cut): out->sigs stays NULL and only the line rule is left.
 * HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int collect_signatures(const measure_opts *o, const char *tool, const measure_prog *p,
                              sanitize_result *out, unsigned timeout_ms,
                              const sanitize_tool_result *x)
{
    if (x->errors <= 0 || x->errors > SANITIZE_SIG_MAX_FINDINGS || out->sigs)
        return HK_OK;
    if (!(out->sigs = hk_calloc(1, sizeof *out->sigs)))
        return HK_ENOMEM;
    sanitize_tool_result again;
    int rc = run_tool(o, tool, SANITIZE_MEMCHECK, p, out, timeout_ms,
                      (unsigned)x->errors + 1, out->sigs, &again);
    HK_DEBUG("sanitize: memcheck's findings by signature on %s: status %d, %ld printed of %ld, "
             "%zu distinct, %ld unsigned, in %ld ms", p->exe, (int)again.status,
             out->sigs->printed, out->sigs->errors, out->sigs->n, out->sigs->unsigned_n,
             again.wall_ms);
    if (rc || again.status != SANITIZE_FOUND || !sanitize_sigs_complete(out->sigs)) {
        sanitize_sigs_free(out->sigs);
        hk_free(out->sigs);
        out->sigs = NULL;
    }
    return rc;
}

int sanitize_candidate(const measure_opts *o, const sanitize_opts *so, const measure_prog *p,
                       sanitize_result *out)
{
    memset(out, 0, sizeof *out);
    out->elements = -1;
    out->reason = MEASURE_OK;
    if (!o || !o->spec || !p || !p->exe)
        return HK_EINVAL;
    for (int t = 0; t < SANITIZE_N_TOOLS; t++)
        out->tools[t].tool = (enum sanitize_tool)t;
    measure_combo *combos = NULL;
    size_t n = 0;
    char *tool = NULL;
    int rc = measure_combos_quick(o->spec, 2000, &combos, &n);
    if (rc)
        return rc;
    /* the quick set starts with the smallest size's first distribution and seed; the pass
     * at the timed size keeps them and takes the size the speedup is measured at */
    out->timed = so && so->timed;
    if (out->timed && (so->size < 0 || (size_t)so->size >= o->spec->n_sizes)) {
        hk_free(combos);
        return HK_EINVAL;
    }
    out->size = out->timed ? so->size : combos[0].size;
    out->dist = combos[0].dist;
    out->seed = combos[0].seed;
    hk_free(combos);
    out->elements = largest_buffer(o, out->size);
    char why[300];
    if (so && so->unchecked) {
        out->outcome = SANITIZE_UNCHECKED;
        out->note = not_checked_note(so->unchecked);
        return out->note ? HK_OK : HK_ENOMEM;
    }
    if (so && so->tool)
        rc = (tool = hk_strdup(so->tool)) ? HK_OK : HK_ENOMEM;
    else
        rc = sanitize_find_tool(&tool, why, sizeof why);
    if (rc == HK_ENOENT) {
        out->outcome = SANITIZE_UNCHECKED;
        out->note = not_checked_note(why);
        return out->note ? HK_OK : HK_ENOMEM;
    }
    if (rc)
        return rc;
    snprintf(out->tool_path, sizeof out->tool_path, "%s", tool);
    unsigned timeout_ms = timeout_of(so);
    out->outcome = SANITIZE_PASSED;
    for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
        sanitize_tool_result *x = &out->tools[t];
        unsigned limit = so && so->baseline ? SANITIZE_JUDGE_PRINT_LIMIT : 1;
        /* memcheck judged against the original's findings by signature: every finding up
         * to one more than the original's count printed, so that all of them are seen
         * unless there are more than the original's */
        const sanitize_sigs *bsig = t == SANITIZE_MEMCHECK && so && so->baseline
                                        ? so->baseline->sigs : NULL;
        if (bsig && !sanitize_sigs_complete(bsig))
            bsig = NULL;
        if (bsig) {
            if (!(out->sigs = hk_calloc(1, sizeof *out->sigs))) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (bsig->errors + 1 > (long)limit)
                limit = (unsigned)(bsig->errors + 1);
        }
        if ((rc = run_tool(o, tool, (enum sanitize_tool)t, p, out, timeout_ms, limit,
                           bsig ? out->sigs : NULL, x)))
            goto out;
        HK_DEBUG("sanitize: %s on %s: status %d in %ld ms%s%s", sanitize_tool_name(t), p->exe,
                 (int)x->status, x->wall_ms, x->text[0] ? ": " : "", x->text);
        if (t == SANITIZE_MEMCHECK && so && so->signatures && x->status == SANITIZE_FOUND &&
            (rc = collect_signatures(o, tool, p, out, timeout_ms, x)))
            goto out;
        if (x->status == SANITIZE_FOUND && bsig) {
            char why_not[512];
            if (sanitize_sigs_within(bsig, out->sigs, why_not, sizeof why_not)) {
                x->status = SANITIZE_INHERITED;
                x->reason = MEASURE_OK;
                x->by_signature = true;
                snprintf(x->text, sizeof x->text, EN(SAN_INHERITED_SIGS), out->sigs->errors,
                         bsig->errors, out->sigs->first);
                continue;
            }
            if (!inherited(so, (enum sanitize_tool)t, x)) {
                char was[sizeof x->text];
                memcpy(was, x->text, sizeof was);
                snprintf(x->text, sizeof x->text, EN(SAN_NOT_ORIGINALS), was, why_not);
            }
        }
        if (x->status == SANITIZE_FOUND && inherited(so, (enum sanitize_tool)t, x)) {
            x->status = SANITIZE_INHERITED;
            x->reason = MEASURE_OK;
            continue;
        }
        if (x->status == SANITIZE_FOUND || x->status == SANITIZE_FAILED) {
            if (out->outcome == SANITIZE_REJECTED) /* all_tools: the first one stands */
                continue;
            out->outcome = SANITIZE_REJECTED;
            out->reason = x->reason;
            const char *tn = sanitize_tool_name(t);
            out->details = out->timed ? hk_asprintf(EN(SAN_DETAILS_TIMED), tn, out->size, x->text)
                                      : hk_asprintf(EN(SAN_DETAILS), tn, x->text);
            if (!out->details) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (so && so->all_tools)
                continue;
            break;
        }
        if (x->status != SANITIZE_CLEAN && out->outcome != SANITIZE_REJECTED) {
            out->outcome = SANITIZE_UNCHECKED;
            out->incomplete |= x->incomplete;
        }
        /* a tool past its limit leaves the next ones to check (session 46): a kernel slow
         * only under memcheck must not skip racecheck and initcheck; each has its own limit */
    }
    rc = make_note(out);
out:
    hk_free(tool);
    return rc;
}

json_t *sanitize_result_json(const sanitize_result *r)
{
    static const char *const status_names[] = {"not_run", "clean", "found", "failed",
                                               "not_checked", "timed_out", "inherited"};
    static const char *const outcome_names[] = {"passed", "rejected", "unchecked"};
    json_t *tools = json_array();
    for (int t = 0; tools && t < SANITIZE_N_TOOLS; t++) {
        const sanitize_tool_result *x = &r->tools[t];
        json_array_append_new(
            tools, json_pack("{s:s, s:s, s:s, s:I}", "tool", sanitize_tool_name(x->tool),
                             "status",
                             (unsigned)x->status < HK_ARRAY_LEN(status_names)
                                 ? status_names[x->status]
                                 : "?",
                             "text", x->text, "wall_ms", (json_int_t)x->wall_ms));
    }
    json_t *timed = r->at_timed ? sanitize_result_json(r->at_timed) : NULL;
    if (r->at_timed && !timed) {
        json_decref(tools);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:s?, s:s?, s:i, s:I, s:i, s:I, s:s?, s:b, s:o*, s:o*}", "outcome",
                     (unsigned)r->outcome < HK_ARRAY_LEN(outcome_names)
                         ? outcome_names[r->outcome]
                         : "?",
                     "reason", measure_reason_name(r->reason), "details", r->details, "note",
                     r->note, "size", r->size, "seed", (json_int_t)r->seed, "dist", r->dist,
                     "elements", (json_int_t)r->elements, "tool",
                     r->tool_path[0] ? r->tool_path : NULL, "incomplete", r->incomplete,
                     "tools", tools, "timed", timed);
}
