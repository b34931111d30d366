/*
 * gennames.h — names a JVM or a library makes up at run time, normalised so
 * that two runs of one program can be compared (analysis/diff.h).
 *
 * The same lambda is shop.Cart$$Lambda$14+0x00007f3a1c00a218 in one run and
 * shop.Cart$$Lambda$17+0x00007f19e8009c40 in the next; the same pool thread
 * is "pool-1-thread-3" in one and "pool-2-thread-3" in the next.  A
 * normalised name replaces each made-up part by "*":
 *
 *   hidden class (JDK 15+), VM-anonymous class (JDK 8): the suffix
 *     "+0x7f3a1c00a218", "/0x7f3a1c00a218", ".0x…", "/1234567", ".1234567"
 *     becomes a slash and a star (java.lang.invoke.LambdaForm$MH, a slash,
 *     a star: the form Class.getName() gives, its address starred)
 *   lambda: "$$Lambda$14" with any such suffix, "$$Lambda" with one
 *     (JDK 21) -> "$$Lambda$*"
 *   dynamic proxy: "$Proxy12" -> "$Proxy*", package "jdk.proxy3." ->
 *     "jdk.proxy*."
 *   reflection accessor: GeneratedMethodAccessor17,
 *     GeneratedConstructorAccessor3, GeneratedSerializationConstructorAccessor5
 *     -> GeneratedMethodAccessor* ...
 *   CGLIB (and Spring's): "$$EnhancerByCGLIB$$1a2b3c",
 *     "$$FastClassByCGLIB$$…", "$$EnhancerBySpringCGLIB$$…",
 *     "$$SpringCGLIB$$0" -> "$$EnhancerByCGLIB$$*" ...
 *   ByteBuddy, Mockito, Hibernate: "$ByteBuddy$abc123",
 *     "$ByteBuddy$auxiliary$abc123", "$MockitoMock$123", "$HibernateProxy$Ab12"
 *     -> "$ByteBuddy$*" ...; Javassist: "_$$_jvst1a2_3", "_$$_javassist_12"
 *     -> "_$$_jvst*", "_$$_javassist_*"
 *   thread: each run of decimal digits -> "*" ("pool-*-thread-*",
 *     "ForkJoinPool-*-worker-*", "Thread-*")
 *
 * An array class is its element class's name with its "[]" kept.  A name
 * with no made-up part is unchanged (the functions return 0).
 *
 * Pure functions of their input: no allocation, no state.  The normalised
 * name is never longer than the name, so an output of strlen(name) + 1 bytes
 * is enough; with less, the functions return 0 and write nothing useful.
 */
#ifndef HP_GENNAMES_H
#define HP_GENNAMES_H

#include <stddef.h>

/* what was made up (bits of the functions' results) */
enum {
	HP_GEN_LAMBDA    = 1u << 0,
	HP_GEN_HIDDEN    = 1u << 1,   /* a hidden or VM-anonymous class, not a lambda */
	HP_GEN_PROXY     = 1u << 2,
	HP_GEN_ACCESSOR  = 1u << 3,
	HP_GEN_CGLIB     = 1u << 4,
	HP_GEN_BYTEBUDDY = 1u << 5,   /* ByteBuddy, Mockito, Hibernate, Javassist */
	HP_GEN_THREAD    = 1u << 6,
	HP_GEN_NKINDS    = 7
};

/* A class name ("a.b.C", "a.b.C[][]").  Returns the kinds of made-up parts
 * replaced in out (0: none; out then holds a copy of name when it fits). */
unsigned hp_gen_class_name(const char *name, char *out, size_t cap);
/* A thread's name. */
unsigned hp_gen_thread_name(const char *name, char *out, size_t cap);
/* A label of a dominator path (analysis/diff.h): "thread \"NAME\"", "class
 * a.b.C" (a class object) or a class name. */
unsigned hp_gen_label(const char *label, char *out, size_t cap);
/* "lambda", "hidden class", "proxy", "reflection accessor", "CGLIB",
 * "ByteBuddy", "thread" for bit k (0 <= k < HP_GEN_NKINDS); short words for
 * JSON ("lambda", "hidden", "proxy", "accessor", "cglib", "bytebuddy",
 * "thread") with key set */
const char *hp_gen_kind_name(unsigned k, int key);

#endif
