/*
 * Passes take() a 300-byte string, then a 700-byte one: longer than
 * the BPF backend's old 128-byte strings, and than MAXSTRINGLEN (512),
 * for user_string() of a uprobe's parameter. It prints nothing.
 */
#include <string.h>

static char buf[701];

void __attribute__((noinline)) take(const char *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
}

int main(void)
{
	for (int i = 0; i < 700; i++)
		buf[i] = 'a' + i % 26;
	buf[300] = 0;
	take(buf);
	buf[300] = 'a' + 300 % 26;
	take(buf);
	return 0;
}
