# A 32-bit task's system calls for e2e/syscall_names48_ia32.stp: int $0x80
# with the 32-bit numbers (unistd_32.h) and registers (ebx, ecx, edx, ...).
	.globl _start
	.text
_start:
	movl $34, %eax		# nice(3)
	movl $3, %ebx
	int $0x80
	movl $180, %eax		# pread64(-1, 0, 7, 0x100000002)
	movl $-1, %ebx
	xorl %ecx, %ecx
	movl $7, %edx
	movl $2, %esi		# the offset's low word
	movl $1, %edi		# and its high word
	int $0x80
	movl args, %eax		# touch the page: a probe reads user memory
				# without faulting it in
	movl $102, %eax		# socketcall(SYS_RECV, args): recv(-1, 0, 5, 0)
	movl $10, %ebx
	movl $args, %ecx
	int $0x80
	movl $1, %eax		# exit(0)
	xorl %ebx, %ebx
	int $0x80

	.data
args:	.long -1, 0, 5, 0
