/* perfkit: the Performance Toolkit of zvswitch. Renders FCX240 (VSWITCH), FCX269 (VNIC),
 * PGROUP (our port-group screen) and RESOLVER (ours: the name resolver) for any interval of a monitor file or for the live
 * stream, exports the same data as CSV or JSON, and draws the SVG chart / HTML report.
 *
 *   perfkit FCX240|FCX269|PGROUP --file F [--interval hh:mm:ss | --index n | --all]
 *                                          [--csv | --json]
 *   perfkit FCX240|FCX269|PGROUP|RESOLVER --file F --nav  (stdin: n, p, g hh:mm:ss, q)
 *   perfkit FCX240|FCX269|PGROUP|RESOLVER --live          (the live stream on stdin)
 *   perfkit RESOLVER --file F [--interval hh:mm:ss | --index n | --all]   (ours, D15R1;
 *                                          no CSV or JSON)
 *   perfkit EVENTS --file F              (ours: D6R22/23, D8R2/3, D15R2 in order)
 *   perfkit chart --file F --svg out.svg
 *   perfkit report --file F --html out.html
 *   perfkit serve --file F | --live SOCKET [--listen ADDR:PORT]   (tools/web/web.h)
 *
 * An interval is the time between two consecutive sample groups; interval n (from 1)
 * ends at the (n+1)-th sample group. The default is the last interval. --interval picks
 * the first interval containing that time of day (start < t <= end, UTC).
 * A bad group in the file is reported as "perfkit: FILE: offset N, record R: what" and
 * skipped; the rest of the file is still used. A group of a monitor file format this
 * perfkit does not know (a newer zvswitch) stops the reading with that said: nothing is
 * guessed. Exit: 0 ok, 1 data errors were reported (output still produced), 2 usage,
 * nothing to show, or a format version we do not read.
 */
#include "cp-commands/version.h"
#include "monitor/screens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/monfile.h"
#include "tools/web/web.h"

#define BUF_START (64u * 1024u)
#define BUF_MAX   (256u * 1024u * 1024u)
#define MAX_ERRORS_IN_A_ROW 100000u     /* a reader that never advances */

struct opts {
    const char *screen;                 /* FCX240, FCX269, PGROUP, chart, report */
    const char *file;
    const char *interval;               /* hh:mm:ss */
    const char *svg;
    const char *html;
    const char *live_socket;            /* serve --live SOCKET */
    const char *listen;                 /* serve --listen */
    long index;                         /* 1.., 0 = not given */
    bool all, csv, json, nav, live;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: perfkit FCX240|FCX269|PGROUP --file F [--interval hh:mm:ss | --index n"
            " | --all] [--csv | --json]\n"
            "       perfkit FCX240|FCX269|PGROUP|RESOLVER --file F --nav\n"
            "       perfkit FCX240|FCX269|PGROUP|RESOLVER --live   (monitor stream on stdin)\n"
            "       perfkit RESOLVER --file F [--interval hh:mm:ss | --index n | --all]\n"
            "       perfkit EVENTS --file F\n"
            "       perfkit chart --file F --svg out.svg\n"
            "       perfkit report --file F --html out.html\n"
            "       perfkit serve --file F | --live SOCKET [--listen ADDR:PORT]"
            " (default " WEB_DEFAULT_LISTEN ")\n"
            "       perfkit --help | --version\n");
}

static void report_error(const char *name, const struct zvs_mon_read_error *e, int rc)
{
    if (e->what[0])
        fprintf(stderr, "perfkit: %s: offset %llu, record %d: %s\n", name,
                (unsigned long long)e->offset, e->record, e->what);
    else
        fprintf(stderr, "perfkit: %s: offset %llu, record %d: %s\n", name,
                (unsigned long long)e->offset, e->record, strerror(-rc));
}

/* Reads every group of the reader: samples for the screens, events for EVENTS. */
static int load(struct zvs_mon_reader *rd, const char *name, struct store *ss)
{
    unsigned in_a_row = 0;
    for (;;) {
        struct zvs_mon_group g;
        struct zvs_mon_read_error e;
        memset(&e, 0, sizeof(e));
        int rc = zvs_mon_reader_next(rd, &g, &e);
        if (rc == 0)
            return 0;
        if (rc < 0) {
            report_error(name, &e, rc);
            ss->nerrors++;
            if (++in_a_row >= MAX_ERRORS_IN_A_ROW || rc == -ENOMEM || rc == -EPROTONOSUPPORT)
                return rc;
            continue;
        }
        in_a_row = 0;
        rc = store_add(ss, &g);
        if (rc < 0)
            return rc;
    }
}

static struct zvs_scr_sample view(const struct store_sample *s)
{
    return (struct zvs_scr_sample){ .tod = s->tod, .rec = s->rec, .nrec = s->nrec };
}

/* A renderer's call into buf: its length, -ENOSPC when cap is too small, or an error. */
typedef int (*fill_fn)(const void *ctx, char *buf, size_t cap);

/* Runs fill into a buffer that doubles from BUF_START up to BUF_MAX until the text fits;
 * the buffer, malloc'ed; NULL and *err on any other error or when even BUF_MAX is too
 * small. */
static char *render_growing(fill_fn fill, const void *ctx, int *err)
{
    for (size_t cap = BUF_START; cap <= BUF_MAX; cap *= 2) {
        char *buf = malloc(cap);
        if (!buf) {
            *err = -ENOMEM;
            return NULL;
        }
        int rc = fill(ctx, buf, cap);
        if (rc >= 0)
            return buf;
        free(buf);
        if (rc != -ENOSPC) {
            *err = rc;
            return NULL;
        }
    }
    *err = -ENOSPC;
    return NULL;
}

/* A screen renderer over one interval (a to b). */
typedef int (*render_fn)(const struct zvs_scr_sample *, const struct zvs_scr_sample *,
                         char *, size_t);

struct screen_call {
    render_fn                    fn;
    const struct zvs_scr_sample *a, *b;
};

static int fill_screen(const void *ctx, char *buf, size_t cap)
{
    const struct screen_call *c = ctx;
    return c->fn(c->a, c->b, buf, cap);
}

/* The screen fn renders for the interval a to b, malloc'ed; NULL and *err on error. */
static char *render_alloc(render_fn fn, const struct zvs_scr_sample *a,
                          const struct zvs_scr_sample *b, int *err)
{
    struct screen_call c = { .fn = fn, .a = a, .b = b };
    return render_growing(fill_screen, &c, err);
}

static int csv_with_header(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                           char *out, size_t cap);
static int csv_no_header(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                         char *out, size_t cap);
static int json_one(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                    char *out, size_t cap);

static enum zvs_scr_screen g_screen;    /* for the export adapters above */

static int csv_with_header(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                           char *out, size_t cap)
{
    return zvs_export_csv(g_screen, a, b, true, out, cap);
}

static int csv_no_header(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                         char *out, size_t cap)
{
    return zvs_export_csv(g_screen, a, b, false, out, cap);
}

static int json_one(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                    char *out, size_t cap)
{
    return zvs_export_json(g_screen, a, b, out, cap);
}

static render_fn screen_fn(const char *name)
{
    if (strcmp(name, "FCX240") == 0) {
        g_screen = ZVS_SCR_FCX240;
        return zvs_fcx240_render;
    }
    if (strcmp(name, "FCX269") == 0) {
        g_screen = ZVS_SCR_FCX269;
        return zvs_fcx269_render;
    }
    if (strcmp(name, "PGROUP") == 0) {
        g_screen = ZVS_SCR_PGROUP;
        return zvs_pgroup_render;
    }
    if (strcmp(name, "RESOLVER") == 0)
        return zvs_resolver_render;     /* no export (parse_args refuses --csv, --json) */
    return NULL;
}

/* Prints interval i (1..n-1); first tells CSV whether to print its header. */
static int print_interval(const struct store *ss, unsigned i, render_fn fn,
                          const struct opts *o, bool first)
{
    struct zvs_scr_sample a = view(&ss->s[i - 1]), b = view(&ss->s[i]);
    render_fn f = fn;
    if (o->csv)
        f = first ? csv_with_header : csv_no_header;
    else if (o->json)
        f = json_one;
    int err = 0;
    char *text = render_alloc(f, &a, &b, &err);
    if (!text) {
        fprintf(stderr, "perfkit: interval %u: %s\n", i, strerror(-err));
        return err;
    }
    fputs(text, stdout);
    if (!o->csv && !o->json && o->all)
        fputs("\n", stdout);
    free(text);
    return 0;
}

/* hh:mm:ss -> seconds of the day, -1 if malformed. */
static long parse_hms(const char *s)
{
    unsigned h, m, sec;
    char tail;
    if (sscanf(s, "%2u:%2u:%2u%c", &h, &m, &sec, &tail) != 3 || h > 23 || m > 59 || sec > 59)
        return -1;
    return (long)(h * 3600 + m * 60 + sec);
}

static int navigate(const struct store *ss, unsigned cur, render_fn fn,
                    const struct opts *o)
{
    char line[128];
    for (;;) {
        int rc = print_interval(ss, cur, fn, o, true);
        if (rc < 0)
            return rc;
        printf("Interval %u of %u. Command (n next, p previous, g hh:mm:ss, q quit):\n", cur,
               ss->n - 1);
        fflush(stdout);
        for (;;) {
            if (!fgets(line, sizeof(line), stdin))
                return 0;
            line[strcspn(line, "\r\n")] = '\0';
            if (strcmp(line, "q") == 0)
                return 0;
            if (strcmp(line, "n") == 0) {
                if (cur + 1 < ss->n) {
                    cur++;
                    break;
                }
                printf("perfkit: no next interval\n");
            } else if (strcmp(line, "p") == 0) {
                if (cur > 1) {
                    cur--;
                    break;
                }
                printf("perfkit: no previous interval\n");
            } else if (strncmp(line, "g ", 2) == 0) {
                long t = parse_hms(line + 2);
                unsigned i = t >= 0 ? store_find_time(ss, t) : 0;
                if (i) {
                    cur = i;
                    break;
                }
                printf("perfkit: no interval contains %s\n", line + 2);
            } else {
                printf("perfkit: unknown command '%s' (n, p, g hh:mm:ss, q)\n", line);
            }
            fflush(stdout);
        }
    }
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "perfkit: %s: %s\n", path, strerror(errno));
        return -errno;
    }
    fputs(text, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "perfkit: %s: %s\n", path, strerror(errno));
        return -EIO;
    }
    return 0;
}

/* The chart's SVG over all intervals, malloc'ed; NULL on error. */
static char *chart_of(const struct store *ss)
{
    unsigned max = 0;
    for (unsigned i = 1; i < ss->n; i++)
        max += ss->s[i].nrec;
    struct zvs_chart_point *pts = calloc(max ? max : 1, sizeof(*pts));
    if (!pts)
        return NULL;
    unsigned n = 0;
    for (unsigned i = 1; i < ss->n; i++) {
        struct zvs_scr_sample a = view(&ss->s[i - 1]), b = view(&ss->s[i]);
        if (zvs_chart_collect(&a, &b, pts, max, &n) < 0)
            continue;                   /* an interval of zero length: nothing to plot */
    }
    char *svg = NULL;
    for (size_t cap = BUF_START; cap <= BUF_MAX && !svg; cap *= 2) {
        svg = malloc(cap);
        if (!svg)
            break;
        if (zvs_chart_svg(pts, n, svg, cap) < 0) {
            free(svg);
            svg = NULL;
        }
    }
    free(pts);
    return svg;
}

static int do_chart(const struct store *ss, const struct opts *o)
{
    char *svg = chart_of(ss);
    if (!svg)
        return -ENOMEM;
    int rc = write_file(o->svg, svg);
    free(svg);
    if (rc == 0)
        printf("perfkit: chart written to %s\n", o->svg);
    return rc;
}

static int fill_events(const void *ctx, char *buf, size_t cap)
{
    const struct store *ss = ctx;
    return zvs_events_render(ss->ev, ss->nev, buf, cap);
}

/* The EVENTS screen of every event record read, malloc'ed; NULL and *err on error. */
static char *events_text(const struct store *ss, int *err)
{
    return render_growing(fill_events, ss, err);
}

static int do_events(const struct store *ss)
{
    int err = 0;
    char *text = events_text(ss, &err);
    if (!text) {
        fprintf(stderr, "perfkit: events: %s\n", strerror(-err));
        return err;
    }
    fputs(text, stdout);
    free(text);
    return 0;
}

static int do_report(const struct store *ss, const struct opts *o)
{
    if (ss->n < 2) {
        fprintf(stderr, "perfkit: %s: no complete interval\n", o->file);
        return -ENODATA;
    }
    struct zvs_scr_sample a = view(&ss->s[ss->n - 2]), b = view(&ss->s[ss->n - 1]);
    render_fn fns[3] = { zvs_fcx240_render, zvs_fcx269_render, zvs_pgroup_render };
    char *screens[4] = { NULL, NULL, NULL, NULL };
    char *svg = chart_of(ss);
    char *html = NULL;
    int rc = 0;
    for (unsigned i = 0; i < 3; i++) {
        screens[i] = render_alloc(fns[i], &a, &b, &rc);
        if (!screens[i])
            goto out;
    }
    screens[3] = events_text(ss, &rc);  /* the whole file's events, not the last interval's */
    if (!screens[3])
        goto out;
    char generator[96];
    snprintf(generator, sizeof generator, "perfkit (zvswitch) %s", zvs_version());
    rc = -ENOSPC;
    for (size_t cap = BUF_START; cap <= BUF_MAX; cap *= 2) {
        html = malloc(cap);
        if (!html) {
            rc = -ENOMEM;
            break;
        }
        rc = zvs_report_html("zvswitch monitor report", generator,
                             (const char *const *)screens, 4, svg, html, cap);
        if (rc >= 0)
            break;
        free(html);
        html = NULL;
    }
    if (rc < 0)
        goto out;
    rc = write_file(o->html, html);
    if (rc == 0)
        printf("perfkit: report written to %s (open it in a browser)\n", o->html);
out:
    if (rc < 0 && rc != -EIO)
        fprintf(stderr, "perfkit: report: %s\n", strerror(-rc));
    for (unsigned i = 0; i < 4; i++)
        free(screens[i]);
    free(svg);
    free(html);
    return rc;
}

/* The live stream: a screen for every new interval, as soon as its group arrives. */
static int do_live(render_fn fn, const struct opts *o)
{
    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_fdopen(0, &err);
    if (!rd) {
        fprintf(stderr, "perfkit: stdin: %s\n", strerror(-err));
        return err;
    }
    struct store ss;
    int rc = store_init(&ss);
    bool first = true;
    if (rc < 0) {
        zvs_mon_reader_close(rd);
        return rc;
    }
    for (;;) {
        struct zvs_mon_group g;
        struct zvs_mon_read_error e;
        memset(&e, 0, sizeof(e));
        rc = zvs_mon_reader_next(rd, &g, &e);
        if (rc == 0)
            break;
        if (rc < 0) {
            report_error("stdin", &e, rc);
            ss.nerrors++;
            if (rc == -EAGAIN || rc == -EPROTONOSUPPORT || ss.nerrors >= MAX_ERRORS_IN_A_ROW)
                break;
            continue;
        }
        if (!g.sample)
            continue;
        rc = store_add(&ss, &g);
        if (rc < 0)
            break;
        if (ss.n >= 2) {
            print_interval(&ss, ss.n - 1, fn, o, first);
            first = false;
            fflush(stdout);
            /* only the last sample is needed from now on */
            free(ss.s[0].rec);
            ss.s[0] = ss.s[1];
            ss.n = 1;
        }
    }
    unsigned errors = ss.nerrors;
    store_destroy(&ss);
    zvs_mon_reader_close(rd);
    return rc < 0 ? rc : (errors ? 1 : 0);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    if (argc < 2)
        return -EINVAL;
    o->screen = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool serve = strcmp(o->screen, "serve") == 0;
        if (serve && strcmp(a, "--live") == 0 && v) {
            o->live_socket = v;
            i++;
        } else if (serve && strcmp(a, "--listen") == 0 && v) {
            o->listen = v;
            i++;
        } else if (strcmp(a, "--file") == 0 && v) {
            o->file = v;
            i++;
        } else if (strcmp(a, "--interval") == 0 && v) {
            o->interval = v;
            i++;
        } else if (strcmp(a, "--index") == 0 && v) {
            char *end;
            o->index = strtol(v, &end, 10);
            if (*end || o->index < 1)
                return -EINVAL;
            i++;
        } else if (strcmp(a, "--svg") == 0 && v) {
            o->svg = v;
            i++;
        } else if (strcmp(a, "--html") == 0 && v) {
            o->html = v;
            i++;
        } else if (strcmp(a, "--all") == 0) {
            o->all = true;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = true;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--nav") == 0) {
            o->nav = true;
        } else if (strcmp(a, "--live") == 0) {
            o->live = true;
        } else {
            return -EINVAL;
        }
    }
    if ((o->interval != NULL) + (o->index != 0) + o->all > 1 || (o->csv && o->json))
        return -EINVAL;
    if (strcmp(o->screen, "serve") == 0)
        return (o->file != NULL) + (o->live_socket != NULL) == 1 && !o->svg && !o->html &&
               !o->nav && !o->csv && !o->json && !o->all && !o->index && !o->interval ? 0 :
               -EINVAL;
    if (strcmp(o->screen, "chart") == 0)
        return o->file && o->svg ? 0 : -EINVAL;
    if (strcmp(o->screen, "report") == 0)
        return o->file && o->html ? 0 : -EINVAL;
    if (strcmp(o->screen, "EVENTS") == 0)
        return o->file && !o->live && !o->nav && !o->csv && !o->json && !o->index &&
               !o->interval && !o->all ? 0 : -EINVAL;
    if (!screen_fn(o->screen))
        return -EINVAL;
    if (strcmp(o->screen, "RESOLVER") == 0 && (o->csv || o->json))
        return -EINVAL;
    if (o->live)
        return o->file || o->nav ? -EINVAL : 0;
    return o->file ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
    struct opts o = { 0 };
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("perfkit (zvswitch) %s\n", zvs_version());
        return 0;
    }
    if (parse_args(argc, argv, &o) < 0) {
        usage(stderr);
        return 2;
    }
    if (strcmp(o.screen, "serve") == 0) {
        char generator[96];
        snprintf(generator, sizeof generator, "perfkit (zvswitch) %s", zvs_version());
        struct web_opts wo = { .file = o.file, .live = o.live_socket, .listen = o.listen,
                               .generator = generator };
        return web_serve(&wo) < 0 ? 2 : 0;
    }
    render_fn fn = screen_fn(o.screen);
    if (o.live)
        return do_live(fn, &o) < 0 ? 2 : 0;

    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open(o.file, &err);
    if (!rd) {
        fprintf(stderr, "perfkit: %s: %s\n", o.file, strerror(-err));
        return 2;
    }
    struct store ss;
    if (store_init(&ss) < 0) {
        zvs_mon_reader_close(rd);
        return 2;
    }
    int rc = load(rd, o.file, &ss);
    zvs_mon_reader_close(rd);
    if (rc == -ENOMEM || rc == -EPROTONOSUPPORT) {
        if (rc == -ENOMEM)
            fprintf(stderr, "perfkit: %s: out of memory\n", o.file);
        store_destroy(&ss);
        return 2;
    }
    int status = 0;
    if (strcmp(o.screen, "EVENTS") == 0) {
        status = do_events(&ss) < 0 ? 2 : 0;
        goto out;
    }
    if (strcmp(o.screen, "chart") == 0) {
        status = do_chart(&ss, &o) < 0 ? 2 : 0;
        goto out;
    }
    if (strcmp(o.screen, "report") == 0) {
        status = do_report(&ss, &o) < 0 ? 2 : 0;
        goto out;
    }
    if (ss.n < 2) {
        fprintf(stderr, "perfkit: %s: no complete interval (%u sample groups)\n", o.file, ss.n);
        status = 2;
        goto out;
    }
    unsigned pick = ss.n - 1;
    if (o.index) {
        if ((unsigned long)o.index >= ss.n) {
            fprintf(stderr, "perfkit: %s: interval %ld: there are %u\n", o.file, o.index,
                    ss.n - 1);
            status = 2;
            goto out;
        }
        pick = (unsigned)o.index;
    } else if (o.interval) {
        long t = parse_hms(o.interval);
        pick = t >= 0 ? store_find_time(&ss, t) : 0;
        if (!pick) {
            fprintf(stderr, "perfkit: %s: no interval contains %s\n", o.file, o.interval);
            status = 2;
            goto out;
        }
    }
    if (o.nav) {
        status = navigate(&ss, o.index || o.interval ? pick : 1, fn, &o) < 0 ? 2 : 0;
    } else if (o.all) {
        for (unsigned i = 1; i < ss.n && status == 0; i++)
            status = print_interval(&ss, i, fn, &o, i == 1) < 0 ? 2 : 0;
    } else {
        status = print_interval(&ss, pick, fn, &o, true) < 0 ? 2 : 0;
    }
out:
    if (status == 0 && ss.nerrors)
        status = 1;
    store_destroy(&ss);
    return status;
}
