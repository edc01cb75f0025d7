/* A program built by the e2e runner for the user-space types tests
 * (utypes_*.stp): structs by pointer and by value, nested pointers,
 * arrays and strings in members, and a parameter a -g script writes
 * (noipa: gcc must neither drop the stores walk does not read nor
 * propagate setme's constant). */
#include <stdio.h>
#include <stdlib.h>

struct inner {
	int id;
	const char *tag;
};

struct outer {
	int n;
	struct inner *in;
	struct inner emb;
	char name[8];
	long vals[3];
};

/* 24 bytes: passed by value on the stack */
struct pair {
	int a;
	long b;
	long c;
};

__attribute__((noipa)) long walk(struct outer *s, struct pair pr, int *ip)
{
	__asm__ volatile("");
	return s->n + s->in->id + pr.a + pr.b + pr.c + *ip;
}

__attribute__((noipa)) int setme(int x)
{
	__asm__ volatile("");
	return x + 1;
}

int main(int argc, char **argv)
{
	struct inner in = { 7, "seven" };
	struct outer o = { 2, &in, { 9, "nine" }, "outer", { 1, -2, 3 } };
	struct pair pr = { -5, 50, 500 };
	int i = 4;
	long r = walk(&o, pr, &i);
	int s = setme(1);

	(void)argv;
	if (argc > 1)	/* quiet in the tests: its output would race the
			 * script's */
		printf("walk %ld setme %d\n", r, s);
	return 0;
}
