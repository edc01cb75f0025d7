/*
 * Three calls deep, each frame with locals on the stack, built with
 * -O2 -fomit-frame-pointer: the innermost makes getpid() with its own
 * syscall instruction, so the user stack at the system call is all this
 * program's. It prints nothing (its output would interleave with the
 * script's).
 */
static long __attribute__((noinline)) inner(long x)
{
	volatile long pad[5] = { x, x + 1, x + 2, x + 3, x + 4 };
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(39L) : "rcx", "r11",
			 "memory");
	return ret + pad[2];
}

static long __attribute__((noinline)) middle(long x)
{
	volatile long pad[9] = { x };
	return inner(x + pad[0]) + 1;
}

static long __attribute__((noinline)) outer(long x)
{
	volatile long pad[3] = { x };
	return middle(x * 2 + pad[0]) + 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	return outer(argc) > 0 ? 0 : 1;
}
