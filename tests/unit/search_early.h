/* Shared by the tests that check where the search places one structural rewrite
 * (test_engine_search_ilp, _tiles, _divmod): the first `budget` proposals of the shipped
 * skills' plan for a kernel. Include after cmocka.h, rw_fixture.h and the search and
 * skillplan headers. */
#ifndef HK_TEST_SEARCH_EARLY_H
#define HK_TEST_SEARCH_EARLY_H

/* The rewrite a kernel should be offered, and what its text then holds. */
typedef struct {
    const char *rewrite, *marker;
} wanted;

/* The first budget proposals for kernel k of fx under launch l with the plan of class cls
 * (skills on sm_90, a baseline at roofline_pct of its roofline bound); true when one is w's
 * rewrite, whose text must then hold w's marker. Prints them. */
static bool proposed_early(const sk_set *skills, unsigned budget, double roofline_pct, const fixture *fx,
                           size_t k, const struct spec *sp, search_launch l, enum sk_class cls, const char *what,
                           const wanted *w)
{
    const an_span *span = &fx->m->funcs[k].span;
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k, .spec = sp};
    skillplan plan;
    sk_metrics mt;
    sk_metrics_init(&mt);
    mt.v[SK_M_ROOFLINE_PCT] = roofline_pct;
    assert_int_equal(skillplan_build_for(skills, "sm_90", cls, &mt, fx->text + span->start_byte,
                                         span->end_byte - span->start_byte, &ctx, &plan),
                     HK_OK);
    l.structs = plan.v;
    l.n_structs = plan.n;
    search_budget b = {.max_candidates = budget};
    search *s;
    assert_int_equal(search_new(fx->text, fx->len, fx->m, k, &l, 1, &b, &s), HK_OK);
    const search_candidate *c;
    bool found = false;
    print_message("%s, %s:\n", what, cls == SK_CLASS_COUNT ? "class unknown" : sk_class_name(cls));
    while (search_next(s, &c) == HK_OK) {
        print_message("  %u: %s\n", c->id, c->description ? c->description : "-");
        if (c->structural && !strncmp(c->structural, w->rewrite, strlen(w->rewrite))) {
            found = true;
            assert_non_null(strstr(c->text, w->marker));
        }
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    }
    search_free(s);
    skillplan_free(&plan);
    return found;
}

#endif
