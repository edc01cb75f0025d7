/*
 * Makes system call 1000 (none: ENOSYS) with six known arguments, for
 * process.syscall's $$parms. Prints nothing.
 */
#include <unistd.h>

int main(void)
{
	return syscall(1000, 0L, 2L, 0x7fffffffL, -1L, 5L, 0x123456789abcL) ==
	       -1 ? 0 : 1;
}
