/* Two system calls the kernel does not implement: a hole in the 64-bit
 * table (between rseq, 334, and pidfd_send_signal, 424), which goes to
 * __x64_sys_ni_syscall, and a number past its end, which does not. */
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	syscall(400);
	syscall(100000);
	return 0;
}
