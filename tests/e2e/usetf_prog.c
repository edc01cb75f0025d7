// The program ustore_write.stp writes into: poke(&g) is where the script
// writes g's fields, seen() passes what the program then reads.
struct cells {
	char c;
	short s;
	int i;
	long l;
	void *p;
	char str[32];
	char part[32];
	char arg[16];
};

static struct cells g = { 'a', 1, 2, 3, 0, "before", "unchanged", "old" };
static const char rodata[] = "read-only";

__attribute__((noinline)) void poke(struct cells *x, const char *ro)
{
	__asm__ volatile("" : : "r"(x), "r"(ro) : "memory");
}

__attribute__((noinline)) void seen(int c, int s, int i, long l, void *p,
				    const char *str, const char *part,
				    const char *arg)
{
	__asm__ volatile("" : : "r"(str), "r"(part), "r"(arg) : "memory");
	(void)c; (void)s; (void)i; (void)l; (void)p;
}

int main(void)
{
	/* written first, so its page is the process's own: a probe's write
	 * never pages memory in (nor copies it on write) */
	g.c = 'a';
	poke(&g, rodata);
	seen(g.c, g.s, g.i, g.l, g.p, g.str, g.part, g.arg);
	return 0;
}
