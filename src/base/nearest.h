/*
 * nearest.h — "did you mean": the names nearest a word that is none of
 * them (a command, an option, a class, a field).
 *
 * The distance is the optimal string alignment form of Damerau-Levenshtein:
 * inserting, deleting or changing a byte, or swapping two neighbours
 * ("--tpo" for "--top"), costs 1.  ASCII letters may be compared without
 * case.  Words are compared by their first HP_NEAR_LEN bytes, less the
 * start and end they share; the work is O(min(|a|, |b|) (2 cap + 1)) on
 * three rows of the band of the table within the cap of its diagonal, and
 * stops as soon as no cell can come back under the cap.
 *
 * struct hp_near keeps the HP_NEAR_MAX names nearest one word among those
 * offered, within a cap; equal names are kept once, ties go to the name
 * that sorts first, so the answer does not depend on the order of the
 * offers.  Names are borrowed: they must live as long as the struct is
 * read.  Pure functions: nothing is allocated and nothing printed.
 */
#ifndef HP_BASE_NEAREST_H
#define HP_BASE_NEAREST_H

#include <stddef.h>

#define HP_NEAR_LEN 127   /* bytes of a word compared */
#define HP_NEAR_MAX 3     /* names a struct hp_near keeps */

/* The distance of a and b, or cap + 1 when it is more than cap; fold: ASCII
 * letters compared without case. */
unsigned hp_near_distance(const char *a, const char *b, unsigned cap, int fold);

struct hp_near {
	const char *word;
	unsigned cap;             /* the farthest a name kept may be */
	int fold;
	size_t n;                 /* names kept, nearest first */
	const char *name[HP_NEAR_MAX];
	unsigned dist[HP_NEAR_MAX];
};

void hp_near_init(struct hp_near *n, const char *word, unsigned cap, int fold);
/* The farthest a name offered now can be and be kept: the cap, or the
 * distance of the last name kept once HP_NEAR_MAX are (a tie may still
 * sort first); the cap a caller measuring its own distances should use. */
unsigned hp_near_reach(const struct hp_near *n);
/* Offers a name: kept when it is among the nearest within the cap (its
 * distance counted within hp_near_reach()). */
void hp_near_offer(struct hp_near *n, const char *name);
/* The same with the distance the caller gives (a prefix counted as 1, a
 * distance of its own); kept when d <= cap. */
void hp_near_offer_at(struct hp_near *n, const char *name, unsigned d);
/* The names kept at the distance of the nearest ("--top", or "'a', 'b'"
 * with quote '\''), joined by ", " into buf (n bytes, always terminated;
 * names that do not fit are left out); how many were written. */
size_t hp_near_join(const struct hp_near *n, char quote, int all, char *buf, size_t len);

#endif
