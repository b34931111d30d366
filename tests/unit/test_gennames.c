/*
 * test_gennames.c — made-up names normalised (analysis/gennames.h), each
 * pattern on names as JDKs and libraries write them, and names that must
 * stay as they are:
 *   - lambdas: JDK 17 "$$Lambda$6+0x00007f…", JDK 21 "$$Lambda+0x…" and
 *     "$$Lambda/0x…", JDK 8 "$$Lambda$6/1234567" (and with '.' for '/'),
 *     with no suffix, arrays of them;
 *   - other hidden classes (LambdaForm$MH+0x…), proxies ($Proxy12,
 *     jdk.proxy3.$Proxy12), the three reflection accessors, CGLIB and
 *     Spring's, ByteBuddy, Mockito, Hibernate, Javassist;
 *   - threads: pool-3-thread-7, ForkJoinPool-1-worker-3, Thread-12; path
 *     labels ("thread \"…\"", "class …");
 *   - plain names unchanged (Foo$1, a.b.v2.C, Cafe, jdk.proxy.Foo), the
 *     result idempotent, a short output refused.
 */
#include "analysis/gennames.h"

#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

enum { CLS, THR, LAB };

static void one(int what, const char *in, const char *want, unsigned kinds)
{
	char out[512], again[512];
	unsigned k = what == CLS ? hp_gen_class_name(in, out, sizeof out)
		   : what == THR ? hp_gen_thread_name(in, out, sizeof out) : hp_gen_label(in, out, sizeof out);
	CHECK(!strcmp(out, want) && k == kinds, "%s -> %s (kinds %#x), want %s (%#x)", in, out, k, want, kinds);
	/* normalised once is normalised: nothing more changes */
	unsigned k2 = what == CLS ? hp_gen_class_name(out, again, sizeof again)
		    : what == THR ? hp_gen_thread_name(out, again, sizeof again) : hp_gen_label(out, again, sizeof again);
	CHECK(!strcmp(again, out), "%s again -> %s (%#x)", out, again, k2);
	CHECK(strlen(out) <= strlen(in), "%s grew to %s", in, out);
}

static void test_lambdas(void)
{
	one(CLS, "shop.ListenerService$$Lambda$6+0x00007f27a1000c18", "shop.ListenerService$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.ListenerService$$Lambda$25+0x00007fcb940054c8", "shop.ListenerService$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "java.util.stream.Collectors$$Lambda$23+0x80000003a", "java.util.stream.Collectors$$Lambda$*",
	    HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda+0x000001b0c1003200", "shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda/0x000001b0c1003200", "shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda$6/1234567", "shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda$6.1234567", "shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda$6", "shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
	one(CLS, "shop.Cart$$Lambda$6+0x00007f27a1000c18[][]", "shop.Cart$$Lambda$*[][]", HP_GEN_LAMBDA);
	one(LAB, "class shop.Cart$$Lambda$6+0x00007f27a1000c18", "class shop.Cart$$Lambda$*", HP_GEN_LAMBDA);
}

static void test_classes(void)
{
	one(CLS, "java.lang.invoke.LambdaForm$MH+0x00007fcb94001800", "java.lang.invoke.LambdaForm$MH/*", HP_GEN_HIDDEN);
	one(CLS, "java.lang.invoke.LambdaForm$DMH/0x0000000800c0c400", "java.lang.invoke.LambdaForm$DMH/*", HP_GEN_HIDDEN);
	one(CLS, "java.lang.invoke.LambdaForm$MH.1234567", "java.lang.invoke.LambdaForm$MH/*", HP_GEN_HIDDEN);
	one(CLS, "jdk.proxy1.$Proxy12", "jdk.proxy*.$Proxy*", HP_GEN_PROXY);
	one(CLS, "com.sun.proxy.$Proxy12", "com.sun.proxy.$Proxy*", HP_GEN_PROXY);
	one(CLS, "shop.$Proxy0", "shop.$Proxy*", HP_GEN_PROXY);
	one(CLS, "jdk.internal.reflect.GeneratedMethodAccessor17", "jdk.internal.reflect.GeneratedMethodAccessor*",
	    HP_GEN_ACCESSOR);
	one(CLS, "jdk.internal.reflect.GeneratedConstructorAccessor3", "jdk.internal.reflect.GeneratedConstructorAccessor*",
	    HP_GEN_ACCESSOR);
	one(CLS, "sun.reflect.GeneratedSerializationConstructorAccessor21",
	    "sun.reflect.GeneratedSerializationConstructorAccessor*", HP_GEN_ACCESSOR);
	one(CLS, "GeneratedMethodAccessor1", "GeneratedMethodAccessor*", HP_GEN_ACCESSOR);
	one(CLS, "shop.Cart$$EnhancerByCGLIB$$1a2b3c", "shop.Cart$$EnhancerByCGLIB$$*", HP_GEN_CGLIB);
	one(CLS, "shop.Cart$$FastClassByCGLIB$$5e6f7a", "shop.Cart$$FastClassByCGLIB$$*", HP_GEN_CGLIB);
	one(CLS, "shop.Cart$$EnhancerBySpringCGLIB$$9f8e7d6c_2", "shop.Cart$$EnhancerBySpringCGLIB$$*", HP_GEN_CGLIB);
	one(CLS, "shop.Config$$SpringCGLIB$$0", "shop.Config$$SpringCGLIB$$*", HP_GEN_CGLIB);
	one(CLS, "shop.Cart$$EnhancerByCGLIB$$1a2b$$FastClassByCGLIB$$3c4d",
	    "shop.Cart$$EnhancerByCGLIB$$*$$FastClassByCGLIB$$*", HP_GEN_CGLIB);
	one(CLS, "shop.Repo$ByteBuddy$abc123", "shop.Repo$ByteBuddy$*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Repo$ByteBuddy$auxiliary$Xy7Qw2Lm", "shop.Repo$ByteBuddy$auxiliary$*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Repo$MockitoMock$123456", "shop.Repo$MockitoMock$*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Order$HibernateProxy$AbCd1234", "shop.Order$HibernateProxy$*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Order_$$_jvst1a2_3", "shop.Order_$$_jvst*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Order_$$_javassist_12", "shop.Order_$$_javassist_*", HP_GEN_BYTEBUDDY);
	one(CLS, "shop.Order$HibernateProxy$AbCd1234[]", "shop.Order$HibernateProxy$*[]", HP_GEN_BYTEBUDDY);
	one(LAB, "class jdk.proxy1.$Proxy3", "class jdk.proxy*.$Proxy*", HP_GEN_PROXY);
}

static void test_threads(void)
{
	one(THR, "pool-3-thread-7", "pool-*-thread-*", HP_GEN_THREAD);
	one(THR, "ForkJoinPool-1-worker-3", "ForkJoinPool-*-worker-*", HP_GEN_THREAD);
	one(THR, "ForkJoinPool.commonPool-worker-11", "ForkJoinPool.commonPool-worker-*", HP_GEN_THREAD);
	one(THR, "Thread-12", "Thread-*", HP_GEN_THREAD);
	one(THR, "main", "main", 0);
	one(THR, "", "", 0);
	one(LAB, "thread \"pool-3-thread-7\"", "thread \"pool-*-thread-*\"", HP_GEN_THREAD);
	one(LAB, "thread \"Reference Handler\"", "thread \"Reference Handler\"", 0);
	one(LAB, "thread \"\"", "thread \"\"", 0);
	/* a class whose name starts like a label is a class */
	one(LAB, "thread", "thread", 0);
}

static void test_plain(void)
{
	static const char *const same[] = {
		"java.lang.String", "byte[]", "java.lang.Object[][]", "shop.Cart$1", "shop.Cart$Inner", "a.b.v2.C123",
		"com.Cafe", "jdk.proxy.Foo", "jdk.proxy1", "shop.Config$$SpringCGLIB$$", "shop.Proxy12", "Foo+bar",
		"pkg.123", "shop.$Proxy", "shop.GeneratedMethodAccessor", "shop.MyGeneratedMethodAccessor1",
		"java.lang.invoke.LambdaForm$MH", "shop.Cart$$Lambda", "", "x", "[]",
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		one(CLS, same[i], same[i], 0);
	one(LAB, "java.lang.String", "java.lang.String", 0);
	one(LAB, "class java.lang.String", "class java.lang.String", 0);
}

static void test_small_out(void)
{
	char out[8];
	CHECK(hp_gen_class_name("shop.$Proxy0", out, sizeof out) == 0, "a short output refused");
	CHECK(hp_gen_thread_name("pool-1-thread-1", out, sizeof out) == 0, "a short output refused (thread)");
	CHECK(hp_gen_label("thread \"pool-1-thread-1\"", out, sizeof out) == 0, "a short output refused (label)");
	char fit[13];
	CHECK(hp_gen_class_name("shop.$Proxy0", fit, sizeof fit) == HP_GEN_PROXY && !strcmp(fit, "shop.$Proxy*"),
	      "strlen + 1 is enough: %s", fit);
	CHECK(!strcmp(hp_gen_kind_name(0, 0), "lambda") && !strcmp(hp_gen_kind_name(3, 1), "accessor") &&
	      !strcmp(hp_gen_kind_name(99, 0), "?"), "kind names");
}

int main(void)
{
	test_lambdas();
	test_classes();
	test_threads();
	test_plain();
	test_small_out();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
