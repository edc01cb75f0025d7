/* A program built by the e2e runner (guest_prog.stp's stap-build) and run
 * in the guest as -c ./guest_prog: connects to itself over 127.0.0.1. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &len)) {
		perror("guest_prog: listen");
		return 1;
	}
	if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
		perror("guest_prog: connect");
		return 1;
	}
	fputs("guest_prog: connected over 127.0.0.1\n", stderr);
	return 0;
}
